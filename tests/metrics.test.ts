import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { delta, scrape as scrapeMetrics } from "./helpers/metrics";
import { cart, newKey, waitFor } from "./helpers/shopper";

/**
 * GET /api/metrics: the instance's counters in Prometheus text format, moved
 * by the payment path's own events — claim decisions, responses, payments,
 * and the in-process maintenance's reconciliations and cleanup deletions.
 * A database of its own, because the maintenance reconciles and cleans up
 * whatever it finds.
 */
// Long enough that a Stripe call on a busy CI machine never times out (which
// would count an "unknown" payment).
const STRIPE_TIMEOUT_MS = 8_000;
const TTL_MS = STRIPE_TIMEOUT_MS + 1_000;
const h = useTestApp(
  {
    MAINTENANCE_INTERVAL_MS: "500",
    IDEMPOTENCY_IN_PROGRESS_TTL_MS: String(TTL_MS),
    STRIPE_TIMEOUT_MS: String(STRIPE_TIMEOUT_MS),
    STRIPE_MAX_NETWORK_RETRIES: "0",
  },
  { ownDatabase: "metrics" },
);

const scrape = () => scrapeMetrics(h.url);

describe("GET /api/metrics", () => {
  it("counts claim decisions, responses by status and payments by outcome", async () => {
    const shopper = await h.shopper();
    const before = await scrape();
    expect(before.has("idempotency_cleanup_deleted_total")).toBe(true); // declared before anything happened

    const paidKey = newKey();
    expect((await shopper.checkout(paidKey, cart())).status).toBe(201); // claimed, succeeded
    expect((await shopper.checkout(paidKey, cart())).status).toBe(201); // replay
    expect((await shopper.checkout(paidKey, cart("pm_card_mastercard"))).status).toBe(422); // mismatch
    expect((await shopper.checkout(newKey(), cart("pm_card_chargeDeclined"))).status).toBe(402); // claimed, declined

    await h.emulator.faults({ latencyMs: 1_000 });
    const slowKey = newKey();
    const owner = shopper.checkout(slowKey, cart()); // claimed, succeeded after a second
    await waitFor("the slow charge to be in flight", async () => (await h.emulator.stats()).delayed >= 1);
    expect((await shopper.checkout(slowKey, cart())).status).toBe(409); // in_progress
    expect((await owner).status).toBe(201);
    expect((await h.emulator.stats()).delayed).toBe(1); // the latency really applied, to the one call

    const after = await scrape();
    const moved = (sample: string) => delta(before, after, sample);
    expect({
      claimed: moved('checkout_claims_total{decision="claimed"}'),
      replay: moved('checkout_claims_total{decision="replay"}'),
      mismatch: moved('checkout_claims_total{decision="mismatch"}'),
      inProgress: moved('checkout_claims_total{decision="in_progress"}'),
      ok: moved('checkout_responses_total{status="201"}'),
      declined: moved('checkout_responses_total{status="402"}'),
      conflict: moved('checkout_responses_total{status="409"}'),
      reuse: moved('checkout_responses_total{status="422"}'),
      charged: moved('checkout_payments_total{outcome="succeeded"}'),
      refused: moved('checkout_payments_total{outcome="declined"}'),
    }).toEqual({
      claimed: 3,
      replay: 1,
      mismatch: 1,
      inProgress: 1,
      ok: 3,
      declined: 1,
      conflict: 1,
      reuse: 1,
      charged: 2,
      refused: 1,
    });
  });

  it("counts the maintenance's reconciliations and cleanup deletions", async () => {
    const shopper = await h.shopper();
    const before = await scrape();

    // A transient provider failure the shopper never retries: the reconciler finishes it.
    await h.emulator.faults({ failNext: { status: 503, times: 1 } });
    const abandonedKey = newKey();
    expect((await shopper.checkout(abandonedKey, cart())).status).toBe(503);
    expect((await h.emulator.stats()).failedInjected).toBe(1);
    // The released attempt is due for the reconciler a TTL later: it ages by that, as if the shopper never came back.
    const aged = await h.db.ageAttempt(shopper.customerId!, abandonedKey, TTL_MS);
    expect(aged.next_attempt_in_ms).toBeLessThanOrEqual(0);
    await waitFor(
      "the reconciler to finish the attempt",
      async () => (await h.db.record(shopper.customerId!, abandonedKey))?.status === "completed",
      15_000,
    );

    // A finished record whose retention ran out: the cleanup deletes it.
    const oldKey = newKey();
    expect((await shopper.checkout(oldKey, cart())).status).toBe(201);
    await h.db.expire(shopper.customerId!, oldKey);
    await waitFor(
      "the cleanup to delete the expired record",
      async () => (await h.db.record(shopper.customerId!, oldKey)) === null,
      15_000,
    );

    const after = await scrape();
    expect(delta(before, after, 'checkout_reconciliations_total{outcome="paid"}')).toBe(1);
    expect(delta(before, after, "idempotency_cleanup_deleted_total")).toBe(1);
    expect(delta(before, after, 'checkout_payments_total{outcome="unknown"}')).toBe(1); // the 503
    expect(delta(before, after, 'checkout_responses_total{status="503"}')).toBe(1);
    expect((await h.emulator.stats()).charges).toBe(2); // the reconciled attempt and the expired one, once each
  });
});
