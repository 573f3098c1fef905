import type { PaymentIntent } from "@checkout/stripe-emulator/client";
import { expect, type CheckoutExchange, type Shopper } from "../fixtures";

/**
 * The two records that must agree after any fault: the provider's ledger holds
 * exactly one succeeded PaymentIntent for this shopper, made with the attempt's
 * key, and the shop holds exactly one order, paid with that PaymentIntent.
 */
export async function expectChargedOnce(
  shopper: Shopper,
  expected: { amountCents: number; key: string; orderId?: string },
): Promise<PaymentIntent> {
  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => [i.status, i.amount, i.metadata.idempotencyKey])).toEqual([
    ["succeeded", expected.amountCents, expected.key],
  ]);
  const intent = intents[0]!;
  const orders = await shopper.orders();
  expect(orders.map((o) => [o.status, o.amountCents, o.paymentIntentId])).toEqual([
    ["paid", expected.amountCents, intent.id],
  ]);
  expect(intent.metadata.orderId).toBe(orders[0]!.id);
  if (expected.orderId) expect(orders[0]!.id).toBe(expected.orderId);
  return intent;
}

/** The one key every exchange carried (fails if there were several, or none). */
export function onlyKey(exchanges: CheckoutExchange[]): string {
  const keys = [...new Set(exchanges.map((e) => e.key))];
  expect(keys, "Idempotency-Keys sent").toHaveLength(1);
  return keys[0]!;
}

/** `201`, `201 replayed`, `409`, `failed: net::…`: one word per exchange, for exact expectations. */
export function outcomes(exchanges: CheckoutExchange[]): string[] {
  return exchanges.map((e) =>
    e.status === null ? `failed: ${e.failure ?? "pending"}` : `${e.status}${e.replayed ? " replayed" : ""}`,
  );
}

/** The order id in a paid answer. */
export function orderIdOf(exchange: CheckoutExchange | undefined): string {
  const id = exchange?.json?.orderId;
  expect(typeof id, "orderId in the answer").toBe("string");
  return id as string;
}
