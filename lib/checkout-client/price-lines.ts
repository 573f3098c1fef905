import type { CartItem, Product } from "./types";

/**
 * The cart priced with the server's catalogue (GET /api/products), the same
 * prices the server will charge. Lines whose product no longer exists are
 * left out rather than sent to be refused.
 */
export interface PricedLine extends CartItem {
  name: string;
  unitPriceCents: number;
  lineCents: number;
}

export function priceLines(items: readonly CartItem[], products: readonly Product[]) {
  const bySku = new Map(products.map((p) => [p.sku, p]));
  const lines: PricedLine[] = items.flatMap((item) => {
    const product = bySku.get(item.sku);
    return product
      ? [
          {
            ...item,
            name: product.name,
            unitPriceCents: product.priceCents,
            lineCents: product.priceCents * item.quantity,
          },
        ]
      : [];
  });
  return {
    lines,
    totalCents: lines.reduce((sum, line) => sum + line.lineCents, 0),
    currency: products[0]?.currency ?? "usd",
  };
}
