import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { TEST_OPS_TOKEN } from "./app-env";
import { killDuringRefund } from "./helpers/crash";
import { useTestApp } from "./helpers/harness";
import { authenticate } from "./helpers/three-d-secure";
import { CART, cart, newKey, tokenCart, type Shopper } from "./helpers/shopper";

/**
 * The operator's cancel of a payment not yet succeeded, over HTTP against the
 * emulator's ledger: one cancel at Stripe per key and however many operators
 * race, nothing sent for a paid order, Stripe's refusal of a processing debit
 * passed on, the race with the shopper's 3-D Secure return decided by Stripe
 * in either order, and a crash mid-cancel retaken into the one cancel.
 */
const TTL_MS = 60_000;
const h = useTestApp(
  {
    OPS_TOKEN: TEST_OPS_TOKEN,
    PAYMENT_METHOD_TYPES: "card,sepa_debit,ideal",
    SHOP_CURRENCY: "eur", // Stripe takes SEPA Direct Debit and iDEAL in EUR only
    IDEMPOTENCY_IN_PROGRESS_TTL_MS: String(TTL_MS),
    STRIPE_TIMEOUT_MS: "5000",
    STRIPE_MAX_NETWORK_RETRIES: "0",
  },
  { ownDatabase: "cancels" },
);
const AUTH = { authorization: `Bearer ${TEST_OPS_TOKEN}` };

const stripe = () =>
  createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url, maxNetworkRetries: 0 });

function cancel(shopper: Shopper, orderId: string, key: string | null, body: unknown, headers = AUTH) {
  return shopper.request("POST", `/api/ops/orders/${orderId}/cancel`, {
    body,
    anonymous: true,
    headers: key === null ? headers : { ...headers, "idempotency-key": key },
  });
}

/** A checkout paid by a card that needs 3-D Secure: 202, the shopper at the authentication page. */
async function waitingFor3ds(shopper: Shopper) {
  const made = await shopper.request("POST", "/api/checkouts", { body: { items: CART } });
  expect(made.status).toBe(201);
  const checkoutId = made.body.id as string;
  const key = newKey();
  const parked = await shopper.checkout(key, { checkoutId, paymentMethod: "pm_card_threeDSecure2Required" });
  expect(parked.status, JSON.stringify(parked.body)).toBe(202);
  const orderId = parked.body.orderId as string;
  const order = await h.db.order(orderId);
  expect(order).toMatchObject({ status: "pending", payment_intent_id: expect.stringMatching(/^pi_/) });
  return {
    checkoutId,
    key,
    orderId,
    paymentIntentId: order!.payment_intent_id as string,
    authUrl: parked.body.nextAction.url as string,
  };
}

/** The shopper's return from 3-D Secure or the bank's page, as the return page reports it. */
function returnFrom3ds(shopper: Shopper, key: string, paymentIntent: string) {
  return shopper.request("POST", `/api/checkout/${key}/return`, { body: { paymentIntent } });
}

async function canceledEvents(paymentIntentId: string): Promise<number> {
  const events = await h.emulator.events();
  return events.filter(
    (e) => e.type === "payment_intent.canceled" && (e.data.object as { id?: string }).id === paymentIntentId,
  ).length;
}

describe("POST /api/ops/orders/{orderId}/cancel", () => {
  it("cancels once per key: the same request again is replayed, a changed body under the key is refused", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId, checkoutId } = await waitingFor3ds(shopper);
    const key = randomUUID();
    const first = await cancel(shopper, orderId, key, { reason: "requested_by_customer" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({
      orderId,
      paymentIntentId,
      paymentStatus: "canceled",
      orderStatus: "failed",
      reason: "requested_by_customer",
    });
    const again = await cancel(shopper, orderId, key, { reason: "requested_by_customer" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const changed = await cancel(shopper, orderId, key, { reason: "fraudulent" });
    expect(changed.status).toBe(422);
    expect(changed.body.error).toBe("idempotency_key_reuse");
    expect(await h.emulator.stat("cancellations")).toBe(1);
    expect(await canceledEvents(paymentIntentId)).toBe(1);
    const intent = await stripe().paymentIntents.retrieve(paymentIntentId);
    expect(intent).toMatchObject({ status: "canceled", cancellation_reason: "requested_by_customer" });
    expect(await h.db.order(orderId)).toMatchObject({
      status: "failed",
      cancel_reason: "requested_by_customer",
      canceled_at: expect.any(Date),
    });
    // The failed payment's path: the checkout reopens and is paid by another card.
    const card = await shopper.checkout(newKey(), { checkoutId, paymentMethod: "pm_card_visa" });
    expect(card.status, JSON.stringify(card.body)).toBe(201);
    const again2 = await cancel(shopper, orderId, randomUUID(), {});
    expect(again2.status).toBe(422);
    expect(again2.body).toMatchObject({ error: "order_not_cancelable" });
    expect(again2.body.message).toMatch(/already cancelled/);
  });

  it("makes one cancel at Stripe of 20 concurrent requests under different keys", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId } = await waitingFor3ds(shopper);
    const answers = await Promise.all(Array.from({ length: 20 }, () => cancel(shopper, orderId, randomUUID(), {})));
    const made = answers.filter((a) => a.status === 200);
    expect(made, JSON.stringify(answers.map((a) => a.body))).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.status).toBe(422);
      expect(["cancel_in_progress", "order_not_cancelable"]).toContain(refused.body.error);
    }
    expect(await h.emulator.stat("cancellations")).toBe(1);
    expect(await canceledEvents(paymentIntentId)).toBe(1);
    expect(await h.db.order(orderId)).toMatchObject({ status: "failed", cancel_key_id: expect.any(String) });
  });

  it("refuses a paid order (nothing sent), bad input, no credential and an unknown order", async () => {
    const shopper = await h.shopper();
    const paid = await shopper.checkout(newKey(), cart());
    expect(paid.status).toBe(201);
    const orderId = paid.body.orderId as string;
    const before = await h.emulator.stat("requests");
    const key = randomUUID();
    const refused = await cancel(shopper, orderId, key, {});
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: "order_paid" });
    expect(refused.body.message).toMatch(/^Order .* is paid: nothing to cancel\. Refund it instead\.$/);
    const replayed = await cancel(shopper, orderId, key, {});
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(await h.emulator.stat("requests")).toBe(before);
    for (const body of [{ reason: "bored" }, { amountCents: 5 }, [], null]) {
      const bad = await cancel(shopper, orderId, randomUUID(), body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error).toBe("invalid_request");
    }
    expect((await cancel(shopper, orderId, null, {})).status).toBe(400);
    expect((await cancel(shopper, orderId, randomUUID(), {}, {} as typeof AUTH)).status).toBe(401);
    expect((await cancel(shopper, randomUUID(), randomUUID(), {})).status).toBe(404);
    expect(await h.emulator.stat("requests")).toBe(before);
  });

  it("passes on Stripe's refusal to cancel a SEPA debit that is processing, and lets go of the order", async () => {
    const shopper = await h.shopper();
    const token = await stripe().testHelpers.confirmationTokens.create({
      payment_method_data: {
        type: "sepa_debit",
        sepa_debit: { iban: "DE89370400440532013000" },
        billing_details: { name: "Jenny Rosen", email: "jenny@example.com" },
      },
    });
    const debit = await shopper.checkout(newKey(), { ...tokenCart(token.id), paymentMethodType: "sepa_debit" });
    expect(debit.status, JSON.stringify(debit.body)).toBe(202);
    const orderId = debit.body.orderId as string;
    const refused = await cancel(shopper, orderId, randomUUID(), {});
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body).toMatchObject({ error: "payment_not_cancelable", paymentStatus: "processing" });
    expect(refused.body.message).toMatch(/because it has a status of processing/);
    expect(await h.emulator.stat("cancellations")).toBe(0);
    expect(await h.db.order(orderId)).toMatchObject({ status: "processing", cancel_key_id: null });
    // Let go: another press asks Stripe again (and hears the same).
    const again = await cancel(shopper, orderId, randomUUID(), {});
    expect(again.body).toMatchObject({ error: "payment_not_cancelable" });
  });
});

describe("a bank redirect waiting for the shopper", () => {
  it("is cancelled once; the bank then sends the shopper back failed, and the return says so", async () => {
    const shopper = await h.shopper();
    const token = await stripe().testHelpers.confirmationTokens.create({ payment_method_data: { type: "ideal" } });
    const key = newKey();
    const parked = await shopper.checkout(key, { ...tokenCart(token.id), paymentMethodType: "ideal" });
    expect(parked.status, JSON.stringify(parked.body)).toBe(202);
    const orderId = parked.body.orderId as string;
    const canceled = await cancel(shopper, orderId, randomUUID(), { reason: "abandoned" });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body).toMatchObject({ paymentStatus: "canceled", orderStatus: "failed" });
    // The shopper authorizes at the bank afterwards: the intent is decided, the bank only redirects.
    const page = new URL(parked.body.nextAction.url as string);
    const bank = await fetch(page.origin + page.pathname, {
      method: "POST",
      body: new URLSearchParams({ client_secret: page.searchParams.get("client_secret") ?? "", action: "authorize" }),
      redirect: "manual",
    });
    const back = new URL(bank.headers.get("location") ?? "");
    expect(back.searchParams.get("redirect_status")).toBe("failed");
    const returned = await returnFrom3ds(shopper, key, back.searchParams.get("payment_intent")!);
    expect(returned.status, JSON.stringify(returned.body)).toBe(402);
    expect(returned.body).toMatchObject({ error: "payment_failed", code: "canceled" });
    expect(await h.emulator.stats()).toMatchObject({ cancellations: 1, charges: 0 });
  });
});

describe("the race with the shopper's 3-D Secure return (Stripe decides)", () => {
  it("the operator's cancel reaches Stripe first: cancelled, the return shows failed, the checkout reopens", async () => {
    const shopper = await h.shopper();
    const { key, orderId, paymentIntentId, checkoutId, authUrl } = await waitingFor3ds(shopper);
    await authenticate(authUrl, "complete");
    await h.emulator.faults({ gate: true });
    const canceling = cancel(shopper, orderId, randomUUID(), {});
    await h.emulator.held(1);
    const returning = returnFrom3ds(shopper, key, paymentIntentId);
    await h.emulator.held(2);
    await h.emulator.faults({ release: 1 }); // the cancel
    const canceled = await canceling;
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body).toMatchObject({ paymentStatus: "canceled" });
    await h.emulator.faults({ gate: false }); // the return's confirm, refused by Stripe
    const returned = await returning;
    expect(returned.status, JSON.stringify(returned.body)).toBe(402);
    expect(returned.body).toMatchObject({ error: "payment_failed", code: "canceled", orderId });
    const intent = await stripe().paymentIntents.retrieve(paymentIntentId);
    expect(intent.status).toBe("canceled");
    expect(await h.emulator.stats()).toMatchObject({ cancellations: 1, gated: 2 });
    expect(await h.db.order(orderId)).toMatchObject({ status: "failed" });
    const card = await shopper.checkout(newKey(), { checkoutId, paymentMethod: "pm_card_visa" });
    expect(card.status, JSON.stringify(card.body)).toBe(201);
  });

  it("the shopper's confirm reaches Stripe first: paid, and the cancel is refused with order_paid", async () => {
    const shopper = await h.shopper();
    const { key, orderId, paymentIntentId, authUrl } = await waitingFor3ds(shopper);
    await authenticate(authUrl, "complete");
    await h.emulator.faults({ gate: true });
    const returning = returnFrom3ds(shopper, key, paymentIntentId);
    await h.emulator.held(1);
    const canceling = cancel(shopper, orderId, randomUUID(), {});
    await h.emulator.held(2);
    await h.emulator.faults({ release: 1 }); // the return's confirm
    const returned = await returning;
    expect(returned.status, JSON.stringify(returned.body)).toBe(201);
    expect(returned.body).toMatchObject({ status: "paid" });
    await h.emulator.faults({ gate: false }); // the cancel, refused by Stripe
    const refused = await canceling;
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body).toMatchObject({ error: "order_paid", paymentStatus: "succeeded" });
    expect((await stripe().paymentIntents.retrieve(paymentIntentId)).status).toBe("succeeded");
    expect(await h.emulator.stats()).toMatchObject({ cancellations: 0, gated: 2 });
    expect(await h.db.order(orderId)).toMatchObject({ status: "paid", canceled_at: null });
  });
});

describe("a crash mid-cancel", () => {
  it("is retaken with the same key and cancels once", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId } = await waitingFor3ds(shopper);
    const key = randomUUID();
    await killDuringRefund(h, () => cancel(shopper, orderId, key, { reason: "duplicate" }));
    await h.app.restart();
    const early = await cancel(shopper, orderId, key, { reason: "duplicate" });
    expect(early.status).toBe(409);
    expect(early.headers.get("retry-after")).toBeTruthy();
    await h.db.ageAttempt("ops", key, TTL_MS);
    const retaken = await cancel(shopper, orderId, key, { reason: "duplicate" });
    expect(retaken.status, JSON.stringify(retaken.body)).toBe(200);
    expect(retaken.body).toMatchObject({ paymentStatus: "canceled", orderStatus: "failed", reason: "duplicate" });
    expect(await h.emulator.stat("cancellations")).toBe(1);
    expect(await canceledEvents(paymentIntentId)).toBe(1);
  });

  it("is taken by another key once its lease has run out, or at once when Stripe failed it, and cancels once", async () => {
    const shopper = await h.shopper();
    const { orderId, paymentIntentId } = await waitingFor3ds(shopper);
    // Stripe fails the first call: the attempt's outcome is unknown and its claim released, the order's cancel still its.
    await h.emulator.faults({ failNext: { status: 500, times: 1 } });
    const failed = await cancel(shopper, orderId, randomUUID(), { reason: "abandoned" });
    expect(failed.status, JSON.stringify(failed.body)).toBeGreaterThanOrEqual(500);
    expect(await h.emulator.stat("failedInjected")).toBe(1);
    const taken = await cancel(shopper, orderId, randomUUID(), { reason: "abandoned" });
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body).toMatchObject({ paymentStatus: "canceled", orderStatus: "failed", reason: "abandoned" });
    expect(await h.emulator.stat("cancellations")).toBe(1);
    expect(await canceledEvents(paymentIntentId)).toBe(1);

    // A cancel stuck at Stripe holds the order's cancel for its lease; past it, the next key takes it.
    const second = await waitingFor3ds(shopper);
    const stuck = randomUUID();
    await h.emulator.faults({ gate: true });
    const stuckAnswer = cancel(shopper, second.orderId, stuck, {});
    await h.emulator.held(1);
    const meanwhile = await cancel(shopper, second.orderId, randomUUID(), {});
    expect(meanwhile.status).toBe(422);
    expect(meanwhile.body.error).toBe("cancel_in_progress");
    await h.db.ageAttempt("ops", stuck, TTL_MS);
    const next = cancel(shopper, second.orderId, randomUUID(), {});
    await h.emulator.held(2); // both cancels at Stripe: the taken one's and the stuck one's
    await h.emulator.faults({ gate: false });
    // Stripe cancels once and refuses the other; both read the intent cancelled.
    for (const answer of [await next, await stuckAnswer]) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.paymentStatus).toBe("canceled");
    }
    expect(await h.emulator.stat("cancellations")).toBe(2);
    expect(await canceledEvents(second.paymentIntentId)).toBe(1);
  });
});
