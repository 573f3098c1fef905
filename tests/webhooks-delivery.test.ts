import pg from "pg";
import { describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { useTestApp } from "./helpers/harness";
import { delta, scrape } from "./helpers/metrics";
import { cart, newKey, waitFor } from "./helpers/shopper";
import { authenticate } from "./helpers/three-d-secure";
import { vanishAfterCharge } from "./helpers/vanish";
import { deliver, deliverTo, stripeEvent } from "./helpers/webhooks";

/**
 * The Stripe emulator's own deliveries (signed by the emulator, retried on
 * non-2xx with backoff, duplicated and reordered on demand) to the production
 * build. The maintenance loop runs (it retries deferred events), but the
 * in-progress TTL is long, so within a test only a webhook can take an
 * attempt over. A database of its own: processing an event may take over an
 * attempt.
 */
const h = useTestApp(
  {
    MAINTENANCE_INTERVAL_MS: "500",
    EVENTS_CATCH_UP_INTERVAL_MS: "0", // these tests count what the deliveries alone do
    IDEMPOTENCY_IN_PROGRESS_TTL_MS: "60000",
    STRIPE_TIMEOUT_MS: "4000",
    STRIPE_MAX_NETWORK_RETRIES: "0",
  },
  { ownDatabase: "deliveries" },
);

const webhooks = () => new EmulatorClient(h.app.emulator.url);

/** Waits until the emulator has nothing left to deliver, then until the app has processed every event about `paymentIntentId`. */
async function settled(paymentIntentId: string) {
  await waitFor(
    "the emulator's deliveries to finish",
    async () => (await webhooks().webhookSnapshot()).stats.pending === 0,
    30_000,
  );
  const events = (await webhooks().events()).filter(
    (e) =>
      (e.data.object as { id?: string; payment_intent?: string }).id === paymentIntentId ||
      (e.data.object as { payment_intent?: string }).payment_intent === paymentIntentId,
  );
  const rows = await waitFor(
    "every event to be processed",
    async () => {
      const found = await Promise.all(events.map((e) => h.db.webhookEvent(e.id)));
      return found.every((row) => row?.processed_at) ? found.map((row) => row!) : null;
    },
    20_000,
  );
  return { events, rows };
}

describe("the emulator's own webhook deliveries", () => {
  it("each event sent three times and the batch reversed: every event processed once, the order paid once", async () => {
    await deliverTo(webhooks(), h.url, { faults: { duplicate: 2, reorder: { batch: 6 } } });
    const before = await scrape(h.url);
    const shopper = await h.shopper();
    expect((await shopper.checkout(newKey(), cart())).status).toBe(201);
    const [intent] = await h.emulator.ledger();

    const { events, rows } = await settled(intent!.id);
    expect(events.map((e) => e.type).sort()).toEqual(["payment_intent.created", "payment_intent.succeeded"]);
    const view = await webhooks().webhookSnapshot();
    expect(view.stats).toMatchObject({ duplicatesSent: 4, reorderedBatches: 1, delivered: 6, failedAttempts: 0 });
    expect(rows.map((r) => r.outcome)).toEqual(["already_paid", "already_paid"]);
    const after = await scrape(h.url);
    const moved = (stage: string) =>
      delta(before, after, `webhook_events_total{stage="${stage}",type="payment_intent.created"}`) +
      delta(before, after, `webhook_events_total{stage="${stage}",type="payment_intent.succeeded"}`);
    expect({ received: moved("received"), duplicate: moved("duplicate"), processed: moved("processed") }).toEqual({
      received: 2,
      duplicate: 4,
      processed: 2,
    });
    expect((await h.db.ordersOf(shopper.customerId!)).map((o) => o.status)).toEqual(["paid"]);
    expect((await h.emulator.stats()).charges).toBe(1);
  });

  it("the app killed mid-delivery: the emulator delivers again and the event is processed once", async () => {
    await deliverTo(webhooks(), h.url, { retryBaseMs: 500, maxAttempts: 12 });
    // Hold every insert into the inbox, so a delivery is inside the app, unanswered, when it dies.
    const lock = new pg.Client({ connectionString: h.app.env.DATABASE_URL });
    await lock.connect();
    await lock.query("begin");
    await lock.query("lock table webhook_events in share row exclusive mode");
    /** Statements of the app waiting for the table (a statement's text may not show yet while it waits). */
    const waiting = async () => {
      const { rows } = await lock.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
          where pid <> pg_backend_pid() and datname = current_database() and wait_event = 'relation'`,
      );
      return rows[0]!.n;
    };
    try {
      // The maintenance loop (one round at a time) waits first, so at the kill it is let through ahead of the
      // deliveries' inserts and its claim of due events does not find their events to lease for the dead app.
      const before = await waitFor("the maintenance loop to wait for the inbox", waiting);
      const shopper = await h.shopper();
      const key = newKey();
      const intent = await vanishAfterCharge(h, shopper, key);
      await waitFor("a delivery to be stuck inside the app", async () => (await waiting()) > before);
      await h.app.app.stop("SIGKILL");
      await lock.query("rollback");
      await waitFor(
        "the emulator to see the delivery fail",
        async () => (await webhooks().webhookSnapshot()).stats.failedAttempts >= 1,
      );

      await h.app.restart();
      const { events, rows } = await settled(intent.id);
      const view = await webhooks().webhookSnapshot();
      expect(view.stats.retries).toBeGreaterThanOrEqual(1);
      expect(Math.max(...events.map((e) => view.stats.attempts[e.id] ?? 0))).toBeGreaterThanOrEqual(2); // delivered again
      // One of them finished the attempt (the reconciler would have left both "already_paid"); the
      // other may have found it taken and been retried by the maintenance loop.
      expect(rows.map((r) => r.outcome).sort()).toEqual(["already_paid", "paid"]);
      expect(rows.find((r) => r.outcome === "paid")).toMatchObject({ attempts: 1 });
      const [order] = await h.db.ordersOf(shopper.customerId!);
      expect(order).toMatchObject({ status: "paid", payment_intent_id: intent.id });
      expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "completed", attempts: 2 });
      expect((await h.emulator.stats()).charges).toBe(1);
    } finally {
      await lock.end();
    }
  });

  it("a late success delivered three times: one refund, and the refund's own events change nothing", async () => {
    await deliverTo(webhooks(), h.url, { faults: { duplicate: 2 } });
    const shopper = await h.shopper();
    expect((await shopper.checkout(newKey(), cart("pm_card_chargeDeclined"))).status).toBe(402);
    const [intent] = await h.emulator.ledger();
    const before = await scrape(h.url);

    // Confirmed again behind the shop's back (a late request), after the shopper was told "declined".
    const stripe = createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url });
    expect((await stripe.paymentIntents.confirm(intent!.id, { payment_method: "pm_card_visa" })).status).toBe(
      "succeeded",
    );

    await waitFor("the refund", async () => (await webhooks().refunds(intent!.id)).length > 0, 20_000);
    const { events, rows } = await settled(intent!.id);
    const outcome = (type: string) => rows.filter((_, i) => events[i]!.type === type).map((r) => r.outcome);
    // An event only says where to look: the intent is read from Stripe. Whichever of its events is
    // processed first after the late success (a late-delivered `payment_intent.created` as well as
    // `payment_intent.succeeded`) refunds it; the others find it refunded.
    const intentOutcomes = rows.filter((_, i) => events[i]!.type.startsWith("payment_intent.")).map((r) => r.outcome);
    expect(intentOutcomes.filter((o) => o === "refunded")).toHaveLength(1);
    expect(outcome("payment_intent.succeeded")).toEqual([expect.stringMatching(/^(refunded|already_refunded)$/)]);
    // Stripe's news of the refund may come before or after the app recorded it as its own.
    for (const type of ["refund.created", "charge.refunded"]) {
      expect(outcome(type)).toEqual([expect.stringMatching(/^(refund_recorded|already_refunded)$/)]);
    }
    const refunds = await webhooks().refunds(intent!.id);
    expect(refunds).toHaveLength(1);
    expect((await webhooks().webhookSnapshot()).stats.duplicatesSent).toBeGreaterThanOrEqual(2 * events.length);
    const [order] = await h.db.ordersOf(shopper.customerId!);
    expect(order).toMatchObject({ status: "failed", refund_id: refunds[0]!.id, refund_reason: "late_success" });
    expect(delta(before, await scrape(h.url), "checkout_late_success_refunds_total")).toBe(1);
  });

  it("a late success refunded to a card that refuses it: recorded, counted and shown as not refunded, never retried", async () => {
    await deliverTo(webhooks(), h.url);
    const shopper = await h.shopper();
    expect((await shopper.checkout(newKey(), cart("pm_card_chargeDeclined"))).status).toBe(402);
    const [intent] = await h.emulator.ledger();
    const before = await scrape(h.url);

    // Paid behind the shop's back with Stripe's test card whose refunds fail later at the card network.
    const stripe = createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url });
    const late = await stripe.paymentIntents.confirm(intent!.id, { payment_method: "pm_card_refundFail" });
    expect(late.status).toBe("succeeded");

    await waitFor(
      "the refund to fail at Stripe",
      async () => (await webhooks().refunds(intent!.id))[0]?.status === "failed",
      20_000,
    );
    const { events, rows } = await settled(intent!.id);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["refund.failed", "charge.refund.updated"]));
    const outcomes = rows.map((r) => r.outcome);
    expect(outcomes.filter((o) => o === "refunded")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "refund_failed")).toHaveLength(1); // told once, however many events say so
    const refunds = await webhooks().refunds(intent!.id);
    expect(refunds).toEqual([
      expect.objectContaining({ status: "failed", failure_reason: "expired_or_canceled_card" }),
    ]);

    const [order] = await h.db.ordersOf(shopper.customerId!);
    expect(order).toMatchObject({
      status: "failed",
      refund_id: refunds[0]!.id,
      refund_reason: "late_success",
      refunded_at: null,
      refund_failed_at: expect.any(Date),
      refund_failure_reason: "expired_or_canceled_card",
    });
    const after = await scrape(h.url);
    expect(delta(before, after, 'checkout_refund_failures_total{reason="expired_or_canceled_card"}')).toBe(1);
    expect(delta(before, after, "checkout_late_success_refunds_total")).toBe(1);
    const page = await shopper.request("GET", `/api/orders/${order!.id}`);
    expect(page.body).toMatchObject({ status: "failed", refundedAt: null, refundFailedAt: expect.any(String) });

    // Another event about the intent changes nothing: no second refund to a card that refused the first.
    const again = stripeEvent("payment_intent.succeeded", await stripe.paymentIntents.retrieve(intent!.id));
    expect((await deliver(h.url, again)).status).toBe(200);
    await waitFor(
      "the new event to be processed",
      async () => (await h.db.webhookEvent(again.id))?.processed_at,
      20_000,
    );
    expect((await h.db.webhookEvent(again.id))?.outcome).toBe("already_refunded");
    expect(await webhooks().refunds(intent!.id)).toHaveLength(1);
    expect(await h.db.order(order!.id)).toMatchObject({ refunded_at: null, refund_failed_at: expect.any(Date) });
  });

  it("3-D Secure completed, the shopper slow to return: the events charge nothing, the return pays once", async () => {
    await deliverTo(webhooks(), h.url);
    const shopper = await h.shopper();
    const key = newKey();
    const first = await shopper.checkout(key, cart("pm_card_threeDSecure2Required"));
    expect(first.status).toBe(202);
    const created = (await h.emulator.ledger()).find((i) => i.metadata.customerId === shopper.customerId)!;
    // The intent's events so far, each processed: the attempt waits for the shopper.
    const before = await settled(created.id);
    expect(before.rows.map((r) => r.outcome)).not.toContain("paid");
    const parked = await h.db.record(shopper.customerId!, key);
    expect(parked).toMatchObject({ status: "in_progress", lock_token: null, response_status: 202 });

    const back = await authenticate(first.body.nextAction.url, "complete");
    const paymentIntentId = back.searchParams.get("payment_intent")!;
    // Manual confirmation: authenticated, the intent waits for the shop's confirm; Stripe sends no event for it.
    expect((await h.emulator.ledger()).find((i) => i.id === paymentIntentId)).toMatchObject({
      status: "requires_confirmation",
    });
    expect((await h.emulator.stats()).charges).toBe(0);

    const paid = await shopper.request("POST", `/api/checkout/${key}/return`, {
      body: { paymentIntent: paymentIntentId },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    const { rows, events } = await settled(paymentIntentId);
    // The success's event finds the order the return paid.
    expect(events.map((e) => e.type)).toContain("payment_intent.succeeded");
    expect(rows.filter((r) => r.outcome === "paid")).toHaveLength(0);
    const [order] = await h.db.ordersOf(shopper.customerId!);
    expect(order).toMatchObject({ id: first.body.orderId, status: "paid", payment_intent_id: paymentIntentId });
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "completed", response_status: 201 });

    const late = await shopper.request("POST", `/api/checkout/${key}/return`, {
      body: { paymentIntent: paymentIntentId },
    });
    expect(late.status).toBe(201);
    expect(late.body).toMatchObject({ orderId: order!.id, status: "paid", paymentIntentId });
    expect(
      (await shopper.checkout(key, cart("pm_card_threeDSecure2Required"))).headers.get("idempotent-replayed"),
    ).toBe("true");
    expect((await h.emulator.stats()).charges).toBe(1);
  });
});
