import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { TEST_OPS_TOKEN } from "./app-env";
import { killDuringRefund } from "./helpers/crash";
import { useTestApp } from "./helpers/harness";
import { deliver, stripeEvent } from "./helpers/webhooks";
import { cart, CART_TOTAL_CENTS, waitFor, type Shopper } from "./helpers/shopper";

/**
 * The operator's refunds over HTTP, against the emulator's ledger: one
 * refund per key however many copies, none beyond what was charged however
 * many operators race, and a crash mid-refund retaken into the one refund.
 */
const TTL_MS = 60_000;
const h = useTestApp({
  OPS_TOKEN: TEST_OPS_TOKEN,
  IDEMPOTENCY_IN_PROGRESS_TTL_MS: String(TTL_MS),
  STRIPE_TIMEOUT_MS: "5000",
  STRIPE_MAX_NETWORK_RETRIES: "0",
});
const AUTH = { authorization: `Bearer ${TEST_OPS_TOKEN}` };

async function paidOrder(shopper: Shopper, paymentMethod = "pm_card_visa") {
  const answer = await shopper.checkout(randomUUID(), cart(paymentMethod));
  expect(answer.status).toBe(201);
  const order = await h.db.order(answer.body.orderId as string);
  expect(order).toMatchObject({ status: "paid", amount_cents: CART_TOTAL_CENTS });
  return { orderId: answer.body.orderId as string, paymentIntentId: order!.payment_intent_id as string };
}

function refund(shopper: Shopper, orderId: string, key: string | null, body: unknown, headers = AUTH) {
  return shopper.request("POST", `/api/ops/orders/${orderId}/refunds`, {
    body,
    anonymous: true,
    headers: key === null ? headers : { ...headers, "idempotency-key": key },
  });
}

describe("POST /api/ops/orders/{orderId}/refunds", () => {
  it("makes one provider refund of 20 concurrent requests for the whole amount under different keys", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId } = await paidOrder(shopper);
    const answers = await Promise.all(Array.from({ length: 20 }, () => refund(shopper, orderId, randomUUID(), {})));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 422)).toHaveLength(19);
    for (const refused of answers.filter((a) => a.status === 422))
      expect(refused.body).toMatchObject({ error: "refund_exceeds_remaining", remainingCents: 0 });
    const refunds = await h.emulator.refunds(paymentIntentId);
    expect(refunds.map((r) => r.amount)).toEqual([CART_TOTAL_CENTS]);
    const view = await shopper.request("GET", `/api/ops/orders/${orderId}`, { headers: AUTH, anonymous: true });
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      id: orderId,
      amountCents: CART_TOTAL_CENTS,
      refundedCents: CART_TOTAL_CENTS,
      remainingCents: 0,
      refunds: [{ amountCents: CART_TOTAL_CENTS, source: "operator", stripeRefundId: refunds[0]!.id }],
    });
  });

  it("replays the same key byte for byte, refuses a changed amount under it, and refunds the rest under another", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId } = await paidOrder(shopper);
    const key = randomUUID();
    const first = await refund(shopper, orderId, key, { amountCents: 1000, reason: "damaged" });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      status: "succeeded",
      amountCents: 1000,
      remainingCents: CART_TOTAL_CENTS - 1000,
    });
    const again = await refund(shopper, orderId, key, { amountCents: 1000, reason: "damaged" });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const changed = await refund(shopper, orderId, key, { amountCents: 1200, reason: "damaged" });
    expect(changed.status).toBe(422);
    expect(changed.body.error).toBe("idempotency_key_reuse");
    const rest = await refund(shopper, orderId, randomUUID(), {});
    expect(rest.body).toMatchObject({ amountCents: CART_TOTAL_CENTS - 1000, remainingCents: 0 });
    expect((await h.emulator.refunds(paymentIntentId)).map((r) => r.amount).sort()).toEqual(
      [1000, CART_TOTAL_CENTS - 1000].sort(),
    );
  });

  it("refuses more than remains (stored, nothing sent), bad amounts, no credential and an order with nothing charged", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId } = await paidOrder(shopper);
    const key = randomUUID();
    const tooMuch = await refund(shopper, orderId, key, { amountCents: CART_TOTAL_CENTS + 1 });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toMatchObject({ error: "refund_exceeds_remaining", remainingCents: CART_TOTAL_CENTS });
    const replayed = await refund(shopper, orderId, key, { amountCents: CART_TOTAL_CENTS + 1 });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(await h.emulator.refunds(paymentIntentId)).toEqual([]);
    for (const amountCents of [0, -5, 10.5, "100", 1e20])
      expect((await refund(shopper, orderId, randomUUID(), { amountCents })).status).toBe(400);
    expect((await refund(shopper, orderId, null, {})).status).toBe(400);
    expect((await refund(shopper, orderId, randomUUID(), {}, {} as typeof AUTH)).status).toBe(401);
    const declined = await shopper.checkout(randomUUID(), cart("pm_card_chargeDeclined"));
    expect(declined.status).toBe(402);
    expect(declined.body.orderId).toEqual(expect.any(String));
    const notCharged = await refund(shopper, declined.body.orderId as string, randomUUID(), {});
    expect(notCharged.status).toBe(422);
    expect(notCharged.body.error).toBe("order_not_charged");
    expect(await h.emulator.refunds(paymentIntentId)).toEqual([]);
  });

  it("retakes a refund whose server died mid-call, and refunds once", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId } = await paidOrder(shopper);
    const key = randomUUID();
    const body = { amountCents: 700 };
    await killDuringRefund(h, () => refund(shopper, orderId, key, body));
    await h.app.restart();
    const early = await refund(shopper, orderId, key, body);
    expect(early.status).toBe(409);
    expect(early.headers.get("retry-after")).toBeTruthy();
    await h.db.ageAttempt("ops", key, TTL_MS);
    const retaken = await refund(shopper, orderId, key, body);
    expect(retaken.status).toBe(201);
    expect(retaken.body).toMatchObject({ amountCents: 700, remainingCents: CART_TOTAL_CENTS - 700 });
    expect((await h.emulator.refunds(paymentIntentId)).map((r) => r.amount)).toEqual([700]);
  });

  it("counts a refund the card network refuses later as owed, and as remaining again", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId } = await paidOrder(shopper, "pm_card_refundFail");
    const made = await refund(shopper, orderId, randomUUID(), {});
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ amountCents: CART_TOTAL_CENTS, remainingCents: 0 });
    await waitFor(
      "the refund to fail",
      async () => (await h.emulator.refunds(paymentIntentId))[0]?.status === "failed",
    );
    const [failed] = await h.emulator.refunds(paymentIntentId);
    expect((await deliver(h.url, stripeEvent("refund.failed", failed!))).status).toBe(200);
    const view = await waitFor("the failure on the order", async () => {
      const answer = await shopper.request("GET", `/api/ops/orders/${orderId}`, { headers: AUTH, anonymous: true });
      return answer.body.owedCents > 0 ? answer.body : null;
    });
    expect(view).toMatchObject({
      refundedCents: 0,
      remainingCents: CART_TOTAL_CENTS,
      owedCents: CART_TOTAL_CENTS,
      refunds: [{ status: "failed", failureReason: "expired_or_canceled_card", stripeRefundId: failed!.id }],
    });
  });
});

describe("refunds made before the ledger existed", () => {
  const stripe = () =>
    createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url, maxNetworkRetries: 0 });

  it("the order's view reads Stripe's list: what remains never exceeds what Stripe has left", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId } = await paidOrder(shopper);
    await stripe().refunds.create({ payment_intent: paymentIntentId, amount: 700 }); // the Dashboard, unheard of
    await h.db.refundedBeforeLedger(orderId, 0);
    const view = await shopper.request("GET", `/api/ops/orders/${orderId}`, { headers: AUTH, anonymous: true });
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      refundedCents: 700,
      remainingCents: CART_TOTAL_CENTS - 700,
      refunds: [{ amountCents: 700, source: "provider", status: "succeeded" }],
    });
    const rest = await refund(shopper, orderId, randomUUID(), {});
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect(rest.body).toMatchObject({ amountCents: CART_TOTAL_CENTS - 700, remainingCents: 0 });
    expect((await h.emulator.refunds(paymentIntentId)).map((r) => r.amount).sort()).toEqual(
      [700, CART_TOTAL_CENTS - 700].sort(),
    );
  });

  it("a press Stripe refuses for a refund the shop never heard of is answered with what Stripe has left", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId } = await paidOrder(shopper);
    await stripe().refunds.create({ payment_intent: paymentIntentId, amount: 700 });
    await h.db.refundedBeforeLedger(orderId, 0);
    const refused = await refund(shopper, orderId, randomUUID(), {});
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body).toMatchObject({ error: "refund_exceeds_remaining", remainingCents: CART_TOTAL_CENTS - 700 });
    const rest = await refund(shopper, orderId, randomUUID(), {});
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect(rest.body).toMatchObject({ amountCents: CART_TOTAL_CENTS - 700, remainingCents: 0 });
    expect((await h.emulator.refunds(paymentIntentId)).map((r) => r.amount).sort()).toEqual(
      [700, CART_TOTAL_CENTS - 700].sort(),
    );
  });

  it("a refund recorded on the order alone still counts against what the claim may reserve", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId } = await paidOrder(shopper);
    await stripe().refunds.create({ payment_intent: paymentIntentId, amount: 500 });
    await h.db.refundedBeforeLedger(orderId, 500);
    // No view first: the claim alone decides what "all that remains" is.
    const rest = await refund(shopper, orderId, randomUUID(), {});
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect(rest.body).toMatchObject({ amountCents: CART_TOTAL_CENTS - 500 });
    expect((await h.emulator.refunds(paymentIntentId)).map((r) => r.amount).sort()).toEqual(
      [500, CART_TOTAL_CENTS - 500].sort(),
    );
  });
});
