import type { CartItem } from "./types";

/**
 * The cart as pure functions over its lines: SKUs and quantities only.
 * Prices are never stored here; the checkout page prices lines with the
 * server's catalogue, as the server itself will.
 */
export const MAX_QUANTITY = 99;
export const MAX_LINES = 50;

export function withQuantity(items: readonly CartItem[], sku: string, quantity: number): CartItem[] {
  const clamped = Math.min(MAX_QUANTITY, Math.max(0, Math.trunc(quantity) || 0));
  if (clamped === 0) return items.filter((item) => item.sku !== sku);
  if (items.some((item) => item.sku === sku)) {
    return items.map((item) => (item.sku === sku ? { sku, quantity: clamped } : item));
  }
  return items.length >= MAX_LINES ? [...items] : [...items, { sku, quantity: clamped }];
}

/** The cart once a payment went through: the paid quantities go, anything added meanwhile stays. */
export function withoutPaid(items: readonly CartItem[], paid: readonly CartItem[]): CartItem[] {
  return paid.reduce(
    (left, line) => withQuantity(left, line.sku, quantityOf(left, line.sku) - line.quantity),
    [...items],
  );
}

/** `added`'s quantities on top of the cart's: nothing already in it goes (lines past MAX_LINES are dropped). */
export function withAdded(items: readonly CartItem[], added: readonly CartItem[]): CartItem[] {
  return added.reduce(
    (cart, line) => withQuantity(cart, line.sku, quantityOf(cart, line.sku) + line.quantity),
    [...items],
  );
}

/** Same SKUs and quantities, in any order. */
export function sameItems(a: readonly CartItem[], b: readonly CartItem[]): boolean {
  return a.length === b.length && a.every((line) => quantityOf(b, line.sku) === line.quantity);
}

export function quantityOf(items: readonly CartItem[], sku: string): number {
  return items.find((item) => item.sku === sku)?.quantity ?? 0;
}

export function countItems(items: readonly CartItem[]): number {
  return items.reduce((sum, item) => sum + item.quantity, 0);
}

/** Lines read back from storage, dropping anything malformed rather than failing the page. */
export function parseCart(raw: string | null): CartItem[] {
  if (!raw) return [];
  try {
    const value: unknown = JSON.parse(raw);
    if (!Array.isArray(value)) return [];
    return value
      .filter((v): v is CartItem => typeof v?.sku === "string" && Number.isInteger(v?.quantity))
      .reduce<CartItem[]>((items, item) => withQuantity(items, item.sku, item.quantity), []);
  } catch {
    return [];
  }
}
