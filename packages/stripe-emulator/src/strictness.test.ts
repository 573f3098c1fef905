import type Stripe from "stripe";
import { afterEach, describe, expect, it, vi } from "vitest";
import { knownPaymentMethods } from "./cards";
import { rejection, startReceiver, useEmulator, VISA } from "./test-support";

// The emulator refuses what Stripe refuses and knows what Stripe's testing
// page documents, proven through the real SDK as the app calls it.
const emulator = useEmulator();
const PAYMENT_METHOD_ID = /^pm_[A-Za-z0-9]{24}$/;

describe("Stripe's test payment methods", () => {
  it.each([
    ["pm_card_visa_chargeDeclined", "card_declined", "generic_decline"],
    ["pm_card_visa_chargeDeclinedInsufficientFunds", "card_declined", "insufficient_funds"],
    ["pm_card_visa_chargeDeclinedLostCard", "card_declined", "lost_card"],
    ["pm_card_visa_chargeDeclinedStolenCard", "card_declined", "stolen_card"],
    ["pm_card_visa_chargeDeclinedVelocityLimitExceeded", "card_declined", "card_velocity_exceeded"],
    ["pm_card_chargeDeclinedExpiredCard", "expired_card", "expired_card"],
    ["pm_card_chargeDeclinedIncorrectCvc", "incorrect_cvc", "incorrect_cvc"],
    ["pm_card_chargeDeclinedProcessingError", "processing_error", "processing_error"],
    ["pm_card_radarBlock", "card_declined", "fraudulent"],
  ])("%s is declined with a card error, code %s, decline code %s", async (paymentMethod, code, declineCode) => {
    const client = emulator.stripe();
    const error = await rejection(client.paymentIntents.create({ ...VISA, payment_method: paymentMethod }));
    expect(error).toMatchObject({ type: "StripeCardError", statusCode: 402, code, decline_code: declineCode });
    const intent = await client.paymentIntents.retrieve(error.payment_intent?.id ?? "");
    expect(intent).toMatchObject({
      status: "requires_payment_method",
      last_payment_error: { type: "card_error", code, decline_code: declineCode },
    });
    const charge = await client.charges.retrieve(String(intent.latest_charge));
    expect(charge).toMatchObject({ status: "failed", failure_code: code, paid: false });
    expect(charge.outcome?.type).toBe(paymentMethod === "pm_card_radarBlock" ? "blocked" : "issuer_declined");
  });

  it("asks for 3-D Secure for pm_card_threeDSecureRequired, and charges pm_card_threeDSecureOptional without it", async () => {
    const client = emulator.stripe();
    const returnUrl = "http://127.0.0.1:3000/checkout/return";
    const required = { ...VISA, payment_method: "pm_card_threeDSecureRequired", return_url: returnUrl };
    expect(await client.paymentIntents.create(required)).toMatchObject({
      status: "requires_action",
      next_action: { type: "redirect_to_url" },
    });
    const optional = { ...VISA, payment_method: "pm_card_threeDSecureOptional", return_url: returnUrl };
    expect(await client.paymentIntents.create(optional)).toMatchObject({ status: "succeeded", next_action: null });
  });

  it("knows every payment method of its list, and nothing else", async () => {
    const client = emulator.stripe();
    const known = knownPaymentMethods();
    expect(known).toEqual(expect.arrayContaining(["pm_card_refundFail", "pm_card_pendingRefund", "pm_card_visa"]));
    for (const paymentMethod of known) {
      const created = await client.paymentIntents.create({
        amount: 1000,
        currency: "usd",
        payment_method: paymentMethod,
      });
      expect(created.status, paymentMethod).toBe("requires_confirmation");
    }
    const unknown = await rejection(client.paymentIntents.create({ ...VISA, payment_method: "pm_card_madeUp" }));
    expect(unknown).toMatchObject({ statusCode: 400, code: "resource_missing", param: "payment_method" });
  });

  it("gives each intent a PaymentMethod of its own, never the test token, and keeps it through confirm", async () => {
    const client = emulator.stripe();
    const first = await client.paymentIntents.create(VISA);
    const second = await client.paymentIntents.create(VISA);
    expect(first.payment_method).toMatch(PAYMENT_METHOD_ID);
    expect(second.payment_method).toMatch(PAYMENT_METHOD_ID);
    expect(second.payment_method).not.toBe(first.payment_method);
    const charge = await client.charges.retrieve(String(first.latest_charge));
    expect(charge.payment_method).toBe(first.payment_method);
    // The PaymentMethod made for one intent can pay another, as a saved card can.
    const again = await client.paymentIntents.create({ ...VISA, payment_method: String(first.payment_method) });
    expect(again).toMatchObject({ status: "succeeded", payment_method: first.payment_method });
  });
});

describe("what Stripe refuses", () => {
  it("refuses return_url on a create that does not confirm, and nothing is created", async () => {
    const client = emulator.stripe();
    const returnUrl = "http://127.0.0.1:3000/checkout/return";
    for (const confirm of [undefined, false]) {
      const error = await rejection(
        client.paymentIntents.create({
          amount: 1000,
          currency: "usd",
          payment_method: "pm_card_visa",
          confirm,
          return_url: returnUrl,
        }),
      );
      expect(error).toMatchObject({ type: "StripeInvalidRequestError", statusCode: 400, param: "return_url" });
      expect(error.message).toMatch(/unless `confirm` is set to true/);
    }
    expect((await client.paymentIntents.list()).data).toHaveLength(0);
  });

  it.each([
    ["usd", 49, "$0.50"],
    ["eur", 49, "€0.50"],
    ["gbp", 29, "£0.30"],
    ["jpy", 49, "¥50"],
  ])(
    "refuses %s %i (under Stripe's minimum, %s) with amount_too_small, and takes the minimum",
    async (currency, amount, shown) => {
      const client = emulator.stripe();
      const error = await rejection(client.paymentIntents.create({ ...VISA, currency, amount }));
      expect(error).toMatchObject({ statusCode: 400, code: "amount_too_small", param: "amount" });
      expect(error.message).toBe(`Amount must be at least ${shown} ${currency}`);
      expect((await client.paymentIntents.create({ ...VISA, currency, amount: amount + 1 })).status).toBe("succeeded");
    },
  );

  it("refuses a currency it does not support, naming the ones it does", async () => {
    const error = await rejection(emulator.stripe().paymentIntents.create({ ...VISA, currency: "xyz" }));
    expect(error).toMatchObject({ statusCode: 400, param: "currency" });
    expect(error.message).toMatch(/^Invalid currency: xyz\. Stripe currently supports these currencies: usd, /);
  });
});

describe("events", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it("count an endpoint in pending_webhooks until it acknowledged the event", async () => {
    let status = 500;
    receiver = await startReceiver(() => status);
    await emulator.setWebhooks({ url: receiver.url, retryBaseMs: 50, maxAttempts: 3 });
    const client = emulator.stripe();
    await client.paymentIntents.create(VISA);
    const [succeeded] = (await client.events.list({ type: "payment_intent.succeeded" })).data;
    expect(succeeded?.pending_webhooks).toBe(1);
    await vi.waitFor(() => expect(receiver?.received.length).toBeGreaterThanOrEqual(2), { timeout: 5000 });
    // Refused so far: still pending.
    expect((await client.events.retrieve(succeeded?.id ?? "")).pending_webhooks).toBe(1);
    status = 200;
    await vi.waitFor(async () => expect((await emulator.webhooks()).stats.pending).toBe(0), { timeout: 5000 });
    expect((await emulator.webhooks()).stats.failedAttempts).toBeGreaterThanOrEqual(2);
    const after = await client.events.list({ limit: 100 });
    expect(after.data.map((event) => event.pending_webhooks)).toEqual(after.data.map(() => 0));
  });
});

describe("refunds that settle later", () => {
  /** A paid intent, refunded in full; the refund as first answered. */
  async function refunded(paymentMethod: string) {
    const client = emulator.stripe();
    const paid = await client.paymentIntents.create({ ...VISA, payment_method: paymentMethod });
    const refund = await client.refunds.create({ payment_intent: paid.id });
    return { client, paid, refund };
  }

  async function settled(client: Stripe, id: string, status: string): Promise<Stripe.Refund> {
    await vi.waitFor(async () => expect((await client.refunds.retrieve(id)).status).toBe(status), {
      timeout: 5000,
      interval: 20,
    });
    return client.refunds.retrieve(id);
  }

  it("pm_card_refundFail: succeeded at first, then failed with expired_or_canceled_card, and the money is back on the account", async () => {
    const { client, paid, refund } = await refunded("pm_card_refundFail");
    expect(refund).toMatchObject({ status: "succeeded", amount: 1999 });
    expect(refund.failure_reason).toBeUndefined();
    const failed = await settled(client, refund.id, "failed");
    expect(failed).toMatchObject({ failure_reason: "expired_or_canceled_card" });
    expect(failed.failure_balance_transaction).toMatch(/^txn_/);
    const charge = await client.charges.retrieve(String(paid.latest_charge));
    expect(charge).toMatchObject({ amount_refunded: 0, refunded: false });
    const events = (await client.events.list({ limit: 100 })).data.reverse();
    expect(events.map((event) => event.type)).toEqual([
      "payment_intent.created",
      "payment_intent.succeeded",
      "refund.created",
      "charge.refunded",
      "refund.updated",
      "refund.failed",
      "charge.refund.updated",
    ]);
    const later = events.slice(4);
    for (const event of later) {
      expect(event.data.object).toMatchObject({ id: refund.id, object: "refund", status: "failed" });
      expect(event.request).toEqual({ id: null, idempotency_key: null });
    }
    expect((await emulator.faults()).stats).toMatchObject({ refunds: 1, refundsFailed: 1 });
    // The charge can be refunded again (and this card refuses that too).
    const second = await client.refunds.create({ payment_intent: paid.id }, { idempotencyKey: "second" });
    expect(second.id).not.toBe(refund.id);
    await settled(client, second.id, "failed");
  });

  it("pm_card_pendingRefund: pending at first, then succeeded", async () => {
    const { client, refund } = await refunded("pm_card_pendingRefund");
    expect(refund).toMatchObject({ status: "pending", pending_reason: "processing" });
    const done = await settled(client, refund.id, "succeeded");
    expect(done.pending_reason).toBeUndefined();
    const types = (await client.events.list({ limit: 3 })).data.map((event) => event.type);
    expect(types).toEqual(["charge.refund.updated", "refund.updated", "charge.refunded"]);
  });
});
