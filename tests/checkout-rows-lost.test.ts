import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { attemptId } from "@/lib/checkout/attempt-id";
import { CHECKOUT_ENDPOINT } from "@/lib/checkout/request";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, waitFor, type Shopper } from "./helpers/shopper";
import { signedMetadata } from "@/tests/helpers/identity";

/**
 * One provider call per fresh checkout, under keys derived from the attempt
 * (docs/decisions/0008-one-call-under-attempt-keys.md), through HTTP against
 * the production build. The shop loses an attempt's rows — as a failover to
 * an asynchronous replica loses its last commits — and the shopper's retry
 * with the same key still gets the first PaymentIntent back: one charge.
 */
const h = useTestApp({ STRIPE_MAX_NETWORK_RETRIES: "0" });

const chargesOf = async (shopper: Shopper) =>
  (await h.emulator.ledger()).filter(
    (pi) => pi.metadata.customerId === shopper.customerId && pi.status === "succeeded",
  );

describe("a fresh checkout", () => {
  it("makes exactly one provider call", async () => {
    const shopper = await h.shopper();
    const before = (await h.emulator.stats()).requests;
    const paid = await shopper.checkout(newKey(), cart());
    expect(paid.status).toBe(201);
    expect((await h.emulator.stats()).requests - before).toBe(1);
    expect((await chargesOf(shopper)).map((pi) => pi.id)).toEqual([paid.body.paymentIntentId]);
  });
});

describe("an attempt whose rows the shop lost", () => {
  it("lost while its charge is in flight: the retry answers 201 with the first PaymentIntent, charged once", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    await h.emulator.faults({ latencyMs: 1_500 });
    const first = shopper.checkout(key, cart());
    // The order is written and the provider call is under way: the rows go.
    await waitFor("the order to be written", async () => (await h.db.ordersOf(shopper.customerId!)).length === 1);
    await waitFor("the provider call to be in flight", async () => (await h.emulator.stats()).delayed === 1);
    expect(await h.db.loseAttempt(shopper.customerId!, key)).toEqual({ keys: 1, orders: 1 });
    // Its owner is fenced out (its claim is gone) and answers as a duplicate would.
    expect((await first).status).toBe(409);
    expect(await chargesOf(shopper)).toHaveLength(1);

    await h.emulator.faults({ latencyMs: 0 });
    const retry = await shopper.checkout(key, cart());
    expect(retry.status).toBe(201);
    const charges = await chargesOf(shopper);
    expect(charges.map((pi) => pi.id)).toEqual([retry.body.paymentIntentId]);
    expect((await h.emulator.stats()).replayed).toBe(1); // Stripe replayed the first create
    expect(await h.db.ordersOf(shopper.customerId!)).toMatchObject([
      { status: "paid", payment_intent_id: retry.body.paymentIntentId },
    ]);
  });

  it("lost after the 201: the retry answers 201 with the same PaymentIntent, charged once", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const paid = await shopper.checkout(key, cart());
    expect(paid.status).toBe(201);
    expect(await h.db.loseAttempt(shopper.customerId!, key)).toEqual({ keys: 1, orders: 1 });

    const retry = await shopper.checkout(key, cart());
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(paid.body);
    expect((await h.emulator.stats()).replayed).toBe(1);
    expect((await chargesOf(shopper)).map((pi) => pi.id)).toEqual([paid.body.paymentIntentId]);
  });

  it("lost, then the price changes: the retry adopts the intent Stripe has and charges nothing more", async () => {
    const sku = `lamp-${randomUUID().slice(0, 8)}`;
    await h.db.addProduct(sku, 4_000);
    const shopper = await h.shopper();
    const key = newKey();
    const body = cart("pm_card_visa", [{ sku, quantity: 1 }]);
    const paid = await shopper.checkout(key, body);
    expect(paid).toMatchObject({ status: 201, body: { amountCents: 4_000 } });
    expect(await h.db.loseAttempt(shopper.customerId!, key)).toEqual({ keys: 1, orders: 1 });
    await h.db.setPrice(sku, 4_500);

    const before = (await h.emulator.stats()).requests;
    const retry = await shopper.checkout(key, body);
    expect(retry.status).toBe(201);
    // The same create with another amount (Stripe refuses it: idempotency_error), then the search that found the first.
    expect((await h.emulator.stats()).requests - before).toBe(2);
    expect(retry.body).toEqual(paid.body);
    expect((await chargesOf(shopper)).map((pi) => [pi.id, pi.amount])).toEqual([[paid.body.paymentIntentId, 4_000]]);
    expect(await h.db.ordersOf(shopper.customerId!)).toMatchObject([{ status: "paid", amount_cents: 4_000 }]);
  });
});

describe("a create whose 500 the provider stored", () => {
  it("after the charge happened: the attempt's intent is found by its metadata, paid, never charged again", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const orderId = attemptId({ subjectId: shopper.customerId!, endpoint: CHECKOUT_ENDPOINT, key });
    // Stripe charged, then failed and stored a 500 for the shop's key: the
    // charge is made here, with the metadata the shop sends, and then the
    // shop's own create meets the stored 500.
    const stripe = createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url });
    const charged = await stripe.paymentIntents.create({
      amount: 6_800,
      currency: "usd",
      payment_method: "pm_card_visa",
      confirm: true,
      allowed_payment_method_types: ["card"],
      metadata: signedMetadata(shopper.customerId!, key),
    });
    expect(charged.status).toBe("succeeded");
    await h.emulator.faults({ storeCreate500: 1 });

    const paid = await shopper.checkout(key, cart());
    expect((await h.emulator.stats()).storedCreate500).toBe(1);
    expect(paid).toMatchObject({ status: 201, body: { orderId, paymentIntentId: charged.id } });
    const again = await shopper.checkout(key, cart());
    expect(again).toMatchObject({ status: 201, body: paid.body });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await chargesOf(shopper)).map((pi) => pi.id)).toEqual([charged.id]);
  });
});
