import { describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { useTestApp } from "./helpers/harness";
import { delta, scrape } from "./helpers/metrics";
import { CART_TOTAL_CENTS, cart, newKey, waitFor } from "./helpers/shopper";

/**
 * A shop that receives no webhook at all — no endpoint, or a stopped
 * `stripe listen` — still converges: the maintenance loop reads Stripe's
 * event list back into the inbox. The emulator delivers nothing here (no
 * webhook URL), which each test checks. A database of its own: the
 * maintenance loop takes over whatever it finds.
 */
const h = useTestApp(
  { MAINTENANCE_INTERVAL_MS: "300", EVENTS_CATCH_UP_INTERVAL_MS: "300" },
  { ownDatabase: "catchup" },
);

const webhooks = () => new EmulatorClient(h.app.emulator.url);
const stripe = () => createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url });

async function expectNothingDelivered() {
  const view = await webhooks().webhookSnapshot();
  expect(view.url).toBeNull();
  expect(view.stats).toMatchObject({ delivered: 0 });
}

describe("the events catch-up, with no webhook delivered", () => {
  it("refunds a payment that succeeded after the shop stored a decline", async () => {
    const shopper = await h.shopper();
    expect((await shopper.checkout(newKey(), cart("pm_card_chargeDeclined"))).status).toBe(402);
    const [intent] = await h.emulator.ledger();
    // Confirmed behind the shop's back (a late request) after the shopper was told "declined".
    expect((await stripe().paymentIntents.confirm(intent!.id, { payment_method: "pm_card_visa" })).status).toBe(
      "succeeded",
    );

    const refunds = await waitFor("the catch-up's refund", async () => {
      const found = await webhooks().refunds(intent!.id);
      return found.length > 0 ? found : null;
    });
    expect(refunds).toEqual([expect.objectContaining({ amount: intent!.amount, status: "succeeded" })]);
    const [order] = await waitFor("the order to record the refund", async () => {
      const orders = await h.db.ordersOf(shopper.customerId!);
      return orders[0]?.refund_reason ? orders : null;
    });
    expect(order).toMatchObject({ status: "failed", refund_id: refunds[0]!.id, refund_reason: "late_success" });
    await expectNothingDelivered();
  });

  it("records a refund made in the Dashboard", async () => {
    const shopper = await h.shopper();
    const paid = await shopper.checkout(newKey(), cart());
    expect(paid.status).toBe(201);
    const refund = await stripe().refunds.create({ payment_intent: paid.body.paymentIntentId });

    const order = await waitFor("the order to record the Dashboard's refund", async () => {
      const row = await h.db.order(paid.body.orderId);
      return row?.refund_id ? row : null;
    });
    expect(order).toMatchObject({ status: "paid", refund_id: refund.id, refund_reason: "provider" });
    await expectNothingDelivered();
  });

  it("records a $1 partial refund made in the Dashboard: the order stays paid, partially refunded", async () => {
    const shopper = await h.shopper();
    const paid = await shopper.checkout(newKey(), cart());
    expect(paid.status).toBe(201);
    const refund = await stripe().refunds.create({ payment_intent: paid.body.paymentIntentId, amount: 100 });
    expect(refund).toMatchObject({ amount: 100, status: "succeeded" });

    const order = await waitFor("the order to record the partial refund", async () => {
      const { body } = await shopper.order(paid.body.orderId);
      return body.refundedCents > 0 ? body : null;
    });
    expect(order).toMatchObject({
      status: "paid",
      amountCents: CART_TOTAL_CENTS,
      refundedCents: 100,
      refund: "partial",
      refundedAt: null,
    });
    const { body: listed } = await shopper.orders();
    expect(listed[0]).toMatchObject({ id: paid.body.orderId, status: "paid", refund: "partial", refundedCents: 100 });
    // The rest given back too: refunded in full.
    await stripe().refunds.create({ payment_intent: paid.body.paymentIntentId });
    const full = await waitFor("the order to record the rest", async () => {
      const { body } = await shopper.order(paid.body.orderId);
      return body.refund === "full" ? body : null;
    });
    expect(full).toMatchObject({ status: "paid", refundedCents: CART_TOTAL_CENTS, refundedAt: expect.any(String) });
  });
});

describe("the provider's record, when the shop lost an attempt's rows", () => {
  const restoredAs = (outcome: string) => `checkout_orders_restored_total{outcome="${outcome}"}`;

  it("restores the paid order, its lines and amount, from the intent's metadata", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const paid = await shopper.checkout(key, cart());
    expect(paid.status).toBe(201);
    const { body: before } = await shopper.orders();
    expect(before).toHaveLength(1);
    const metrics = await scrape(h.app.url);
    // As a failover to an asynchronous replica loses the last commits.
    expect(await h.db.loseAttempt(shopper.customerId!, key)).toEqual({ keys: 1, orders: 1 });
    expect(await h.db.order(paid.body.orderId)).toBeNull();

    const restored = await waitFor("the catch-up to restore the order", () => h.db.order(paid.body.orderId));
    expect(restored).toMatchObject({
      status: "paid",
      customer_id: shopper.customerId,
      amount_cents: CART_TOTAL_CENTS,
      payment_intent_id: paid.body.paymentIntentId,
      refund_id: null,
    });
    const { body: after } = await shopper.orders();
    expect(after).toHaveLength(1);
    expect(after[0]!.lines).toEqual(before[0]!.lines);
    expect(delta(metrics, await scrape(h.app.url), restoredAs("paid"))).toBe(1);

    // The shopper's retry finds the restored order and Stripe's first answer: still one charge.
    const retry = await shopper.checkout(key, cart());
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ orderId: paid.body.orderId, paymentIntentId: paid.body.paymentIntentId });
    const charges = (await h.emulator.ledger()).filter((pi) => pi.metadata.customerId === shopper.customerId);
    expect(charges.map((pi) => pi.id)).toEqual([paid.body.paymentIntentId]);
    expect(await webhooks().refunds(paid.body.paymentIntentId)).toEqual([]);
    await expectNothingDelivered();
  });

  it("refunds a charge whose order cannot be restored: its product left the catalogue", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const sku = `restore-${key.slice(0, 8)}`;
    await h.db.addProduct(sku, 1_200);
    const paid = await shopper.checkout(key, cart("pm_card_visa", [{ sku, quantity: 1 }]));
    expect(paid.status).toBe(201);
    const metrics = await scrape(h.app.url);
    expect(await h.db.loseAttempt(shopper.customerId!, key)).toEqual({ keys: 1, orders: 1 });
    await h.db.retireProduct(sku);

    const refunds = await waitFor("the catch-up's refund", async () => {
      const found = await webhooks().refunds(paid.body.paymentIntentId);
      return found.length > 0 ? found : null;
    });
    expect(refunds).toEqual([expect.objectContaining({ amount: 1_200, status: "succeeded" })]);
    expect(await h.db.order(paid.body.orderId)).toBeNull();
    expect(delta(metrics, await scrape(h.app.url), restoredAs("unrestorable_refunded"))).toBe(1);
  });
});
