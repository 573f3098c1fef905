import type { CheckoutRequest } from "@/lib/checkout/request";
import type { ValidationIssue } from "@/lib/validation";
import type { PrismaClient } from "@/lib/generated/prisma/client";

export interface PricedLine {
  sku: string;
  name: string;
  unitPriceCents: number;
  quantity: number;
}

export type PricedCart =
  { ok: true; lines: PricedLine[]; amountCents: number; currency: string } | { ok: false; issues: ValidationIssue[] };

/**
 * Prices a cart from the catalogue in the database for the naive route; the
 * client's idea of a price is never used. The real checkout prices inside its
 * order's insert (lib/checkout/orders.ts).
 */
export async function priceCart(
  prisma: PrismaClient,
  items: NonNullable<CheckoutRequest["items"]>,
): Promise<PricedCart> {
  const products = await prisma.product.findMany({
    where: { sku: { in: items.map((i) => i.sku) } },
    select: { sku: true, name: true, priceCents: true, currency: true },
  });
  const bySku = new Map(products.map((p) => [p.sku, p]));
  const issues = items.flatMap((item, index) =>
    bySku.has(item.sku) ? [] : [{ path: ["items", index, "sku"], message: `unknown product ${item.sku}` }],
  );
  if (issues.length) return { ok: false, issues };
  const currencies = new Set(products.map((p) => p.currency));
  if (currencies.size > 1)
    return { ok: false, issues: [{ path: ["items"], message: "items must share one currency" }] };
  const lines = items.map((item) => {
    const product = bySku.get(item.sku)!;
    return { sku: item.sku, name: product.name, unitPriceCents: product.priceCents, quantity: item.quantity };
  });
  const amountCents = lines.reduce((sum, l) => sum + l.unitPriceCents * l.quantity, 0);
  return { ok: true, lines, amountCents, currency: products[0]!.currency };
}
