import http from "node:http";
import { describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { LOST_AFTER_SECONDS } from "@/lib/webhooks/lost-order";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { useTestApp } from "./helpers/harness";
import { delta, scrape } from "./helpers/metrics";
import { cart, newKey, sleep, waitFor, type Shopper } from "./helpers/shopper";
import { authenticate } from "./helpers/three-d-secure";
import { vanishAfterCharge } from "./helpers/vanish";
import { deliver, sign, stripeEvent } from "./helpers/webhooks";
import { signedMetadata } from "@/tests/helpers/identity";

/**
 * POST /api/webhooks/stripe through HTTP against the production build, with
 * events signed by the real SDK. No reconciler runs in the app
 * (MAINTENANCE_INTERVAL_MS=0): whatever finishes an attempt here is the
 * webhook. A database of its own, because processing an event may take over
 * an attempt, and the shared database holds other files' attempts.
 */
const LATENCY_MS = 1_500;
const ACTION_TIMEOUT_MS = 4_000;
const h = useTestApp(
  {
    MAINTENANCE_INTERVAL_MS: "0",
    IDEMPOTENCY_IN_PROGRESS_TTL_MS: "8000",
    STRIPE_TIMEOUT_MS: "4000", // above LATENCY_MS, below the TTL
    STRIPE_MAX_NETWORK_RETRIES: "0",
    PAYMENT_ACTION_TIMEOUT_MS: String(ACTION_TIMEOUT_MS),
  },
  { ownDatabase: "webhooks" },
);

const processed = (eventId: string) =>
  waitFor(
    `event ${eventId} to be processed`,
    async () => {
      const row = await h.db.webhookEvent(eventId);
      return row?.processed_at ? row : null;
    },
    15_000,
  );

/** What the shopper sees on coming back: the stored confirmation, and no new charge. */
async function expectPaidOnce(shopper: Shopper, key: string, paymentIntentId: string) {
  const [order] = await h.db.ordersOf(shopper.customerId!);
  expect(order).toMatchObject({ status: "paid", payment_intent_id: paymentIntentId, refunded_at: null });
  expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "completed", response_status: 201 });
  const later = await shopper.checkout(key, cart());
  expect(later.status).toBe(201);
  expect(later.headers.get("idempotent-replayed")).toBe("true");
  expect(later.body).toMatchObject({ orderId: order!.id, paymentIntentId });
  expect((await h.emulator.stats()).charges).toBe(1);
  expect(await h.emulator.ledger()).toHaveLength(1);
}

describe("Stripe webhooks", () => {
  it("a shopper who vanished after the charge: the webhook alone makes the order paid", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const intent = await vanishAfterCharge(h, shopper, key);

    const event = stripeEvent("payment_intent.succeeded", intent);
    expect(await deliver(h.url, event)).toEqual({ status: 200, body: { received: true, duplicate: false } });
    expect(await processed(event.id)).toMatchObject({
      outcome: "paid",
      attempts: 1,
      payment_intent_id: intent.id,
      last_error: null,
    });

    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ attempts: 2 }); // the webhook took it over once
    await expectPaidOnce(shopper, key, intent.id);
  });

  it("the same event delivered 5 times at once is processed once", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const intent = await vanishAfterCharge(h, shopper, key);
    const before = await scrape(h.url);

    const event = stripeEvent("payment_intent.succeeded", intent);
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(h.url, event)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.filter((a) => a.body?.duplicate)).toHaveLength(4);
    expect(await processed(event.id)).toMatchObject({ outcome: "paid", attempts: 1 });
    await sleep(500); // room for a wrong second processing to show up

    const after = await scrape(h.url);
    const moved = (stage: string) =>
      delta(before, after, `webhook_events_total{stage="${stage}",type="payment_intent.succeeded"}`);
    expect({ received: moved("received"), duplicate: moved("duplicate"), processed: moved("processed") }).toEqual({
      received: 1,
      duplicate: 4,
      processed: 1,
    });
    expect(await h.db.webhookEvent(event.id)).toMatchObject({ attempts: 1 });
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ attempts: 2 });
    await expectPaidOnce(shopper, key, intent.id);
  });

  it("a tampered body, an old timestamp, a wrong secret or no signature: 400 and nothing stored", async () => {
    const shopper = await h.shopper();
    expect((await shopper.checkout(newKey(), cart())).status).toBe(201);
    const [intent] = await h.emulator.ledger();
    const event = stripeEvent("payment_intent.succeeded", intent!);
    const genuine = JSON.stringify(event);
    const before = await scrape(h.url);

    const tampered = genuine.replace(`"amount":${intent!.amount}`, `"amount":1`);
    expect(tampered).not.toBe(genuine);
    const refusals = [
      await deliver(h.url, event, { payload: tampered, signature: sign(genuine) }),
      await deliver(h.url, event, { payload: genuine, timestamp: Math.floor(Date.now() / 1000) - 301 }),
      await deliver(h.url, event, { payload: genuine, secret: "whsec_someone_else" }),
      await deliver(h.url, event, { payload: genuine, signature: null }),
    ];
    expect(refusals.map((r) => [r.status, r.body?.error])).toEqual(Array(4).fill([400, "invalid_signature"]));
    expect(refusals[1]!.body?.message).toBe("Timestamp outside the tolerance zone");
    expect(await h.db.webhookEvent(event.id)).toBeNull();
    const after = await scrape(h.url);
    expect(delta(before, after, 'webhook_events_total{stage="rejected",type="unknown"}')).toBe(4);

    // The same event, signed correctly: stored (so the refusals above could have stored it).
    expect((await deliver(h.url, event, { payload: genuine })).status).toBe(200);
    expect(await processed(event.id)).toMatchObject({ outcome: "already_paid" });
  });

  it("an event for an attempt a live request still owns is left to its owner, then processed", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    // Stripe has charged and sent its event; its answer to the owner is still on the way.
    await h.emulator.faults({ answerLatencyMs: LATENCY_MS });
    const owner = shopper.checkout(key, cart());
    await waitFor("the charge's answer to be on its way", async () => (await h.emulator.stats()).answersDelayed >= 1);

    const [intent] = await h.emulator.ledger();
    const event = stripeEvent("payment_intent.created", intent!);
    expect((await deliver(h.url, event)).status).toBe(200);
    const deferred = await waitFor("the event to be deferred", async () => {
      const row = await h.db.webhookEvent(event.id);
      return row?.last_error ? row : null;
    });
    expect(deferred).toMatchObject({ processed_at: null, attempts: 1, last_error: "attempt owned by a live request" });
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "in_progress", attempts: 1 }); // not taken over

    expect((await owner).status).toBe(201);
    // The first retry is due after a second (backoff, by the database's clock): the event ages by that.
    expect((await h.db.ageEvent(event.id, 1_000)).next_attempt_in_ms).toBeLessThanOrEqual(0);
    expect((await deliver(h.url, event)).body).toEqual({ received: true, duplicate: true }); // a redelivery tries again
    expect(await processed(event.id)).toMatchObject({ outcome: "already_paid", attempts: 2 });
    expect((await h.emulator.stats()).charges).toBe(1);
  });

  it("a late success on a declined attempt is refunded once, however often and in whatever events it arrives", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const declined = await shopper.checkout(key, cart("pm_card_chargeDeclined"));
    expect(declined.status).toBe(402);
    const [order] = await h.db.ordersOf(shopper.customerId!);
    expect(order).toMatchObject({ status: "failed", refunded_at: null });
    const [intent] = await h.emulator.ledger();
    expect(intent).toMatchObject({ status: "requires_payment_method" });

    // A confirmation the shop never sent succeeds after the shopper was told
    // "declined" (standing in for a request that executed after its caller gave up).
    const stripe = createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url });
    const late = await stripe.paymentIntents.confirm(intent!.id, { payment_method: "pm_card_visa" });
    expect(late.status).toBe("succeeded");
    expect((await h.emulator.stats()).charges).toBe(1);
    const before = await scrape(h.url);

    const event = stripeEvent("payment_intent.succeeded", late);
    for (let i = 0; i < 3; i++) expect((await deliver(h.url, event)).status).toBe(200);
    expect(await processed(event.id)).toMatchObject({ outcome: "refunded", attempts: 1 });
    // Another event about the same intent, twice at once: the refund's key is the intent's, so Stripe replays it.
    const another = stripeEvent("payment_intent.succeeded", late);
    await Promise.all([deliver(h.url, another), deliver(h.url, another)]);
    expect(await processed(another.id)).toMatchObject({ outcome: "already_refunded" });

    const refunds = await new EmulatorClient(h.app.emulator.url).refunds(intent!.id);
    expect(refunds).toEqual([expect.objectContaining({ amount: intent!.amount, status: "succeeded" })]);
    expect((await h.emulator.stats()).refunds).toBe(1);
    expect(await h.db.order(order!.id)).toMatchObject({
      status: "failed",
      refund_id: refunds[0]!.id,
      refund_reason: "late_success",
      refunded_at: expect.any(Date),
    });
    expect(delta(before, await scrape(h.url), "checkout_late_success_refunds_total")).toBe(1);

    // What the shopper sees: the order says so; the attempt still answers what it answered.
    const page = await shopper.request("GET", `/api/orders/${order!.id}`);
    expect(page.body).toMatchObject({ status: "failed", refundReason: "late_success", refundedAt: expect.any(String) });
    expect((await shopper.checkout(key, cart("pm_card_chargeDeclined"))).status).toBe(402);
  });

  it("a second intent for an order already paid is undone: refunded once if it succeeded, cancelled if still open; the order keeps its payment", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const paid = await shopper.checkout(key, cart());
    expect(paid.status).toBe(201);
    const [order] = await h.db.ordersOf(shopper.customerId!);
    const recorded = order!.payment_intent_id!;
    const before = await scrape(h.url);

    // Intents for this order the shop did not record (a bug that created a second one), carrying its signed metadata.
    const stripe = createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url });
    const metadata = signedMetadata(shopper.customerId!, key);
    const charged = await stripe.paymentIntents.create({
      amount: order!.amount_cents,
      currency: "usd",
      payment_method: "pm_card_visa",
      confirm: true,
      metadata,
    });
    expect(charged.status).toBe("succeeded");
    const open = await stripe.paymentIntents.create({
      amount: order!.amount_cents,
      currency: "usd",
      payment_method: "pm_card_visa",
      metadata,
    });
    expect(open.status).toBe("requires_confirmation");
    expect((await h.emulator.stats()).charges).toBe(2); // the injected double charge happened

    const succeeded = stripeEvent("payment_intent.succeeded", charged);
    await Promise.all([deliver(h.url, succeeded), deliver(h.url, succeeded)]);
    expect(await processed(succeeded.id)).toMatchObject({ outcome: "stray_refunded", attempts: 1 });
    const again = stripeEvent("payment_intent.succeeded", charged); // another event about it: the refund's key replays
    await deliver(h.url, again);
    expect(await processed(again.id)).toMatchObject({ outcome: "stray_refunded" });
    const created = stripeEvent("payment_intent.created", open);
    await deliver(h.url, created);
    expect(await processed(created.id)).toMatchObject({ outcome: "stray_canceled" });

    const webhooks = new EmulatorClient(h.app.emulator.url);
    expect(await webhooks.refunds(charged.id)).toEqual([
      expect.objectContaining({ amount: charged.amount, status: "succeeded" }),
    ]);
    expect(await webhooks.refunds(recorded)).toEqual([]);
    expect((await h.emulator.stats()).refunds).toBe(1);
    expect((await stripe.paymentIntents.retrieve(open.id)).status).toBe("canceled");
    // The refund's own news is about the stray, not about the order.
    const refunded = stripeEvent("charge.refunded", {
      id: "ch_stray",
      object: "charge",
      payment_intent: charged.id,
      refunded: true,
    });
    await deliver(h.url, refunded);
    expect(await processed(refunded.id)).toMatchObject({ outcome: "stray_refund" });

    expect(await h.db.order(order!.id)).toMatchObject({
      status: "paid",
      payment_intent_id: recorded,
      refunded_at: null,
      refund_id: null,
    });
    const after = await scrape(h.url);
    expect(delta(before, after, 'checkout_stray_intents_total{action="refunded"}')).toBe(2); // once per event; one refund at Stripe
    expect(delta(before, after, 'checkout_stray_intents_total{action="canceled"}')).toBe(1);
    expect((await shopper.checkout(key, cart())).body).toMatchObject({ orderId: order!.id, paymentIntentId: recorded });
  });

  it("a second intent someone already refunded in the Dashboard is left as it is, not retried", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    expect((await shopper.checkout(key, cart())).status).toBe(201);
    const [order] = await h.db.ordersOf(shopper.customerId!);
    const stripe = createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url });
    const stray = await stripe.paymentIntents.create({
      amount: order!.amount_cents,
      currency: "usd",
      payment_method: "pm_card_visa",
      confirm: true,
      metadata: signedMetadata(shopper.customerId!, key),
    });
    await stripe.refunds.create({ payment_intent: stray.id }); // the Dashboard's refund
    const webhooks = new EmulatorClient(h.app.emulator.url);
    expect(await webhooks.refunds(stray.id)).toHaveLength(1);

    const event = stripeEvent("payment_intent.succeeded", stray);
    await deliver(h.url, event);
    expect(await processed(event.id)).toMatchObject({
      outcome: "stray_already_refunded",
      attempts: 1,
      last_error: null,
    });
    expect(await webhooks.refunds(stray.id)).toHaveLength(1);
    expect(await h.db.order(order!.id)).toMatchObject({ status: "paid", refunded_at: null });
  });

  it("an event about an intent Stripe does not know (another environment's) is acknowledged and set aside", async () => {
    const event = stripeEvent("payment_intent.succeeded", {
      id: "pi_elsewhere0123456789",
      object: "payment_intent",
      status: "succeeded",
      metadata: {},
    });
    expect((await deliver(h.url, event)).status).toBe(200);
    expect(await processed(event.id)).toMatchObject({
      outcome: "ignored_unknown_intent",
      attempts: 1,
      last_error: null,
    });
  });

  it("an unsigned stranger's body over the size limit is refused before it is read", async () => {
    const res = await fetch(`${h.url}/api/webhooks/stripe`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=0" },
      body: "x".repeat(600 * 1024),
    });
    expect(res.status).toBe(413);
  });

  it("a body without a Stripe-Signature header is refused before it is read", async () => {
    // 100 KiB announced (under the size limit), 1 KiB sent, the rest never: the answer can only come from the headers.
    const url = new URL(`${h.url}/api/webhooks/stripe`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: { "content-type": "application/json", "content-length": String(100 * 1024) },
        },
        (res) => {
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNRESET" ? undefined : reject(err)));
      req.write("x".repeat(1024));
    });
    expect(status).toBe(400);
  });
});

describe("a success whose order the shop lost", () => {
  const untilOlderThanMargin = (intent: { created: number }) =>
    sleep(Math.max(0, (intent.created + LOST_AFTER_SECONDS + 1) * 1000 - Date.now()));
  const stripe = () => createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url });

  it("restores the order as paid from the intent's metadata; the retry replays it", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const paid = await shopper.checkout(key, cart());
    expect(paid.status).toBe(201);
    expect(await h.db.loseAttempt(shopper.customerId!, key)).toEqual({ keys: 1, orders: 1 });
    const before = await scrape(h.url);

    const intent = await stripe().paymentIntents.retrieve(paid.body.paymentIntentId);
    const event = stripeEvent("payment_intent.succeeded", intent);
    // At once, the missing order is given the benefit of the doubt: kept for later.
    expect((await deliver(h.url, event)).status).toBe(200);
    const kept = await waitFor("the event to be kept", async () =>
      (await h.db.webhookEvent(event.id))?.last_error ? h.db.webhookEvent(event.id) : null,
    );
    expect(kept).toMatchObject({ processed_at: null, last_error: `no order ${paid.body.orderId} yet` });
    expect(await h.db.order(paid.body.orderId)).toBeNull();
    // Past the margin, Stripe's redelivery restores it.
    await untilOlderThanMargin(intent);
    expect((await deliver(h.url, event)).status).toBe(200);
    expect(await processed(event.id)).toMatchObject({ outcome: "order_restored" });
    expect(await h.db.order(paid.body.orderId)).toMatchObject({
      status: "paid",
      customer_id: shopper.customerId,
      amount_cents: paid.body.amountCents,
      payment_intent_id: intent.id,
      idempotency_key_id: null,
    });
    expect(delta(before, await scrape(h.url), 'checkout_orders_restored_total{outcome="paid"}')).toBe(1);

    const retry = await shopper.checkout(key, cart());
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ orderId: paid.body.orderId, paymentIntentId: intent.id });
    expect((await h.emulator.ledger()).filter((pi) => pi.metadata.customerId === shopper.customerId)).toHaveLength(1);
  });

  it("restores it as failed and refunds it when the surviving attempt told the shopper it failed", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const parked = await shopper.checkout(key, cart("pm_card_threeDSecure2Required"));
    expect(parked.status).toBe(202);
    // The attempt was settled as failed (its deadline passed) and its order lost; the shopper authenticated late.
    await h.db.failAttemptLosingOrder(shopper.customerId!, key);
    expect(await h.db.order(parked.body.orderId)).toBeNull();
    const returned = await authenticate(parked.body.nextAction.url, "complete");
    expect(returned.searchParams.get("payment_intent")).toMatch(/^pi_/);
    const id = returned.searchParams.get("payment_intent")!;
    // Authenticated, the intent waits for the shop's confirm (manual confirmation); one that executed
    // after its caller gave up charges it after the shopper was told it failed.
    expect((await stripe().paymentIntents.retrieve(id)).status).toBe("requires_confirmation");
    const intent = await stripe().paymentIntents.confirm(id);
    expect(intent.status).toBe("succeeded");

    await untilOlderThanMargin(intent);
    const event = stripeEvent("payment_intent.succeeded", intent);
    expect((await deliver(h.url, event)).status).toBe(200);
    expect(await processed(event.id)).toMatchObject({ outcome: "order_restored_refunded" });
    const refunds = await new EmulatorClient(h.app.emulator.url).refunds(intent.id);
    expect(refunds).toEqual([expect.objectContaining({ amount: intent.amount, status: "succeeded" })]);
    const record = await h.db.record(shopper.customerId!, key);
    expect(await h.db.order(parked.body.orderId)).toMatchObject({
      status: "failed",
      idempotency_key_id: record!.id,
      refund_id: refunds[0]!.id,
      refund_reason: "late_success",
    });
  });

  it("cancels an open intent whose attempt the shop lost, once its authentication could have timed out", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const parked = await shopper.checkout(key, cart("pm_card_threeDSecure2Required"));
    expect(parked.status).toBe(202);
    expect(await h.db.loseAttempt(shopper.customerId!, key)).toEqual({ keys: 1, orders: 1 });
    const [intent] = (await h.emulator.ledger()).filter((pi) => pi.metadata.customerId === shopper.customerId);
    expect(intent).toMatchObject({ status: "requires_action" });

    const event = stripeEvent("payment_intent.requires_action", intent!);
    expect((await deliver(h.url, event)).status).toBe(200);
    const kept = await waitFor("the event to be kept", async () =>
      (await h.db.webhookEvent(event.id))?.last_error ? h.db.webhookEvent(event.id) : null,
    );
    expect(kept).toMatchObject({ processed_at: null, last_error: expect.stringMatching(/intent requires_action$/) });
    // The shopper could still authenticate: left alone until the action timeout has passed.
    await sleep(Math.max(0, intent!.created * 1000 + ACTION_TIMEOUT_MS + 1_000 - Date.now()));
    expect((await deliver(h.url, event)).status).toBe(200);
    expect(await processed(event.id)).toMatchObject({ outcome: "lost_order_canceled" });
    expect(await stripe().paymentIntents.retrieve(intent!.id)).toMatchObject({
      status: "canceled",
      cancellation_reason: "abandoned",
    });
  });
});
