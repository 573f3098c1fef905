import { attemptId } from "@/lib/checkout/attempt-id";
import { attemptMetadata, shopIdentity } from "@/lib/checkout/intent-ownership";
import { CHECKOUT_ENDPOINT } from "@/lib/checkout/request";
import type { MetadataLine } from "@/lib/payments/attempt-intent";
import { TEST_SESSION_SECRET } from "../app-env";

/** The shop the test servers are (tests/app-env.ts sets SHOP_ID and SESSION_SECRET), for deps built by hand. */
export const TEST_SHOP_ID = "test-shop";
export const TEST_IDENTITY = shopIdentity(TEST_SHOP_ID, [TEST_SESSION_SECRET]);

/** The catalogue's prices of the lines `cart()` sends (lib/catalogue/products.ts). */
export const CART_LINES = [
  { sku: "tee-classic", quantity: 2, unitPriceCents: 2500 },
  { sku: "mug-enamel", quantity: 1, unitPriceCents: 1800 },
];

/** What the test shop writes into an attempt's intent: its ids, lines, shop and MAC. */
export function signedMetadata(
  customerId: string,
  key: string,
  options: { lines?: MetadataLine[]; currency?: string } = {},
): Record<string, string> {
  const lines = options.lines ?? CART_LINES;
  return attemptMetadata(TEST_IDENTITY, {
    orderId: attemptId({ subjectId: customerId, endpoint: CHECKOUT_ENDPOINT, key }),
    customerId,
    idempotencyKey: key,
    lines,
    amountCents: lines.reduce((sum, l) => sum + l.quantity * l.unitPriceCents, 0),
    currency: options.currency ?? "usd",
  });
}
