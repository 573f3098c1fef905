import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { useTestApp } from "./helpers/harness";
import { CART_TOTAL_CENTS, newKey, waitFor } from "./helpers/shopper";
import { vanishAfterCharge } from "./helpers/vanish";
import { deliver, stripeEvent } from "./helpers/webhooks";
import { attemptId } from "@/lib/checkout/attempt-id";
import { CHECKOUT_ENDPOINT } from "@/lib/checkout/request";
import { signedMetadata } from "@/tests/helpers/identity";

/**
 * The inbox keeps what it cannot process yet and the maintenance loop
 * (MAINTENANCE_INTERVAL_MS) comes back to it: an event that arrived before
 * its order, and an event whose processing died with the app. Events are
 * signed with the real SDK. A database of its own, because the maintenance
 * loop takes over whatever it finds.
 */
const TTL_MS = 10_000;
const h = useTestApp(
  {
    MAINTENANCE_INTERVAL_MS: "300",
    EVENTS_CATCH_UP_INTERVAL_MS: "0", // the inbox is fed by these tests alone
    IDEMPOTENCY_IN_PROGRESS_TTL_MS: String(TTL_MS),
    STRIPE_TIMEOUT_MS: "4000",
    STRIPE_MAX_NETWORK_RETRIES: "0",
  },
  { ownDatabase: "inbox" },
);

const stripe = () =>
  createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url, maxNetworkRetries: 0 });

const row = (eventId: string) => h.db.webhookEvent(eventId);

describe("the webhook inbox", () => {
  it("`succeeded` delivered before `created`, both before the order row exists: kept, and the order ends paid once", async () => {
    const shopper = await h.shopper();
    const [recordId, key] = [randomUUID(), newKey()];
    const orderId = attemptId({ subjectId: shopper.customerId!, endpoint: CHECKOUT_ENDPOINT, key });
    // The shop's create-and-confirm, as it sends it, seen by Stripe before
    // the shop's own writes are visible (a lagging replica, a restore): the
    // metadata names an order this database does not have yet.
    const created = await stripe().paymentIntents.create(
      {
        amount: CART_TOTAL_CENTS,
        currency: "usd",
        payment_method: "pm_card_visa",
        confirm: true,
        return_url: `${h.url}/checkout/return?key=${key}`,
        allowed_payment_method_types: ["card"],
        metadata: signedMetadata(shopper.customerId!, key),
      },
      { idempotencyKey: `${orderId}:create` },
    );
    expect(created.status).toBe("succeeded");

    const first = stripeEvent("payment_intent.succeeded", created);
    const second = stripeEvent("payment_intent.created", { ...created, status: "requires_confirmation" });
    for (const event of [first, second]) expect((await deliver(h.url, event)).status).toBe(200);
    for (const event of [first, second]) {
      const kept = await waitFor("the event to be kept for later", async () =>
        (await row(event.id))?.last_error ? row(event.id) : null,
      );
      expect(kept).toMatchObject({ processed_at: null, last_error: `no order ${orderId} yet` });
    }

    await h.db.insertAttempt({
      recordId,
      customerId: shopper.customerId!,
      key,
      orderId,
      amountCents: CART_TOTAL_CENTS,
      paymentMethod: "pm_card_visa",
    });
    const rows = await waitFor(
      "both events to be processed",
      async () => {
        const both = await Promise.all([row(first.id), row(second.id)]);
        return both.every((r) => r?.processed_at) ? both.map((r) => r!) : null;
      },
      20_000,
    );
    expect(rows.map((r) => r.outcome).sort()).toEqual(["already_paid", "paid"]);
    expect(rows.every((r) => r.attempts >= 2)).toBe(true); // deferred at least once each

    expect(await h.db.order(orderId)).toMatchObject({ status: "paid", payment_intent_id: created.id });
    const record = await h.db.record(shopper.customerId!, key);
    expect(record).toMatchObject({ status: "completed", response_status: 201 });
    expect(JSON.parse(record!.response_body!)).toMatchObject({ orderId, paymentIntentId: created.id });
    expect(await h.emulator.ledger()).toEqual([expect.objectContaining({ id: created.id, status: "succeeded" })]);
    expect((await h.emulator.stats()).charges).toBe(1);
  });

  it("the app dies while processing an event: the maintenance loop processes it again after the lease, and the card is charged once", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    // Charged, the answer lost: a released attempt that only the provider's word can settle.
    const intent = await vanishAfterCharge(h, shopper, key);

    // Hold the attempt's record, so that processing the event is stuck inside the app when it dies.
    const lock = new pg.Client({ connectionString: h.app.env.DATABASE_URL });
    await lock.connect();
    try {
      await lock.query("begin");
      const held = await lock.query(
        "select id from idempotency_keys where subject_id = $1 and key = $2::uuid for update",
        [shopper.customerId, key],
      );
      expect(held.rowCount).toBe(1);
      const event = stripeEvent("payment_intent.succeeded", intent);
      expect((await deliver(h.url, event)).status).toBe(200);
      // Processing waits, directly or behind another claim of the event, on the held record.
      await waitFor("the event's processing to be stuck behind the held attempt", async () => {
        const { rows } = await lock.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
            where pid <> pg_backend_pid() and datname = current_database() and wait_event_type = 'Lock'`,
        );
        return rows[0]!.n >= 1;
      });
      await h.app.app.stop("SIGKILL");
      await lock.query("rollback");
      expect(await row(event.id)).toMatchObject({ processed_at: null, attempts: 1 });

      // The event's lease and any claim the dead processing took on the attempt last the TTL: both rows age by
      // it, as if the app had stayed down that long. The update of the attempt waits for a statement of the dead
      // processing still running on it, so it ages what that statement wrote.
      const attempt = await h.db.ageAttempt(shopper.customerId!, key, TTL_MS);
      expect(attempt.lock_age_ms === null || attempt.lock_age_ms > TTL_MS).toBe(true); // released, or its claim expired
      expect((await h.db.ageEvent(event.id, TTL_MS)).next_attempt_in_ms).toBeLessThanOrEqual(0);
      await h.app.restart();
      const done = await waitFor(
        "the event to be processed again",
        async () => ((await row(event.id))?.processed_at ? row(event.id) : null),
        20_000,
      );
      // Claimed again after the lease; a claim that finds the reconciler driving the attempt is deferred and
      // claimed once more after its backoff, so more than one retry is fine.
      expect(done!.attempts).toBeGreaterThanOrEqual(2);
      // Whoever finished the attempt first — this event's retry or the reconciler — it is paid, once.
      expect(done!.outcome).toMatch(/^(paid|already_paid)$/);
    } finally {
      await lock.end();
    }
    expect((await h.db.ordersOf(shopper.customerId!)).map((o) => [o.status, o.payment_intent_id])).toEqual([
      ["paid", intent.id],
    ]);
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "completed", response_status: 201 });
    expect((await h.emulator.stats()).charges).toBe(1);
    expect(await h.emulator.ledger()).toHaveLength(1);
  });
});
