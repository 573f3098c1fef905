import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, waitFor, type Answer } from "./helpers/shopper";

/**
 * The app gives up on a slow provider (client timeout 2 s, no retries) while
 * the provider goes on and completes the call: the outcome is unknown to the
 * app. The shopper gets 503, and the retry with the same key must find what
 * the provider did rather than pay again. The emulator's gate holds the call
 * past the timeout for as long as a test needs, then lets it complete.
 */
const TIMEOUT_MS = 2_000;
const h = useTestApp({
  STRIPE_TIMEOUT_MS: String(TIMEOUT_MS),
  STRIPE_MAX_NETWORK_RETRIES: "0",
  IDEMPOTENCY_IN_PROGRESS_TTL_MS: "10000",
});

/** The one call the gate holds is still running at the provider after the app's timeout; let go, it completes. */
async function openGate() {
  expect((await h.emulator.snapshot()).held).toBe(1);
  expect(await h.emulator.faults({ gate: false })).toMatchObject({ held: 0, stats: { gated: 1 } });
}

function expectUnavailable(answer: Answer) {
  expect(answer.status).toBe(503);
  expect(answer.body).toMatchObject({ error: "payment_unavailable", retryAfterSeconds: expect.any(Number) });
  expect(answer.headers.get("retry-after")).toBe(String(answer.body.retryAfterSeconds));
}

describe("a shopper whose payment times out at the app", () => {
  it("while the charge lands at the provider: gets 503, and the retry reuses that charge (one PaymentIntent, charged once)", async () => {
    await h.emulator.faults({ gate: true }); // the create-and-confirm outlasts the app's timeout
    const shopper = await h.shopper();
    const key = newKey();
    const started = performance.now();
    const timedOut = await shopper.checkout(key, cart());
    expectUnavailable(timedOut);
    expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS);

    // The provider charges the card, after the app has stopped listening.
    await openGate();
    await waitFor("the charge to land at the provider", async () => (await h.emulator.stats()).charges === 1, 10_000);
    const [intent] = await h.emulator.ledger();
    expect(intent).toMatchObject({ status: "succeeded" });
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "in_progress", lock_token: null });

    const statsBefore = await h.emulator.stats();
    const retry = await shopper.checkout(key, cart());
    expect(retry.status).toBe(201);
    expect(retry.body.paymentIntentId).toBe(intent!.id);

    const statsAfter = await h.emulator.stats();
    expect(statsAfter.charges).toBe(1);
    expect(statsAfter.replayed).toBe(statsBefore.replayed + 1); // the create was replayed, not executed again
    expect(await h.emulator.ledger()).toHaveLength(1);
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "completed", attempts: 2 });
    expect(await h.db.order(retry.body.orderId)).toMatchObject({ status: "paid", payment_intent_id: intent!.id });
  });

  it("and who retries at once, while the first charge is still running at the provider, is still charged once", async () => {
    await h.emulator.faults({ gate: true });
    const shopper = await h.shopper();
    const key = newKey();
    expectUnavailable(await shopper.checkout(key, cart()));
    expect(await h.emulator.stats()).toMatchObject({ delayed: 1, charges: 0 });

    // The provider is still charging: the retry's create, under the same
    // Stripe key, is refused as in flight (409), and the search for the
    // attempt's intent finds none yet, so nothing new is created.
    expectUnavailable(await shopper.checkout(key, cart()));
    expect(await h.emulator.stats()).toMatchObject({ delayed: 1, charges: 0 });
    await openGate();
    await waitFor("the charge to land at the provider", async () => (await h.emulator.stats()).charges === 1, 10_000);
    const [created] = await h.emulator.ledger();
    expect(created).toMatchObject({ status: "succeeded" });

    const paid = await shopper.checkout(key, cart());
    expect(paid.status).toBe(201);
    expect(paid.body.paymentIntentId).toBe(created!.id);
    const stats = await h.emulator.stats();
    expect(stats.charges).toBe(1);
    expect(stats.replayed).toBeGreaterThanOrEqual(1); // the create was replayed by the provider, not repeated
    const ledger = await h.emulator.ledger();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ id: created!.id, status: "succeeded" });
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "completed", attempts: 3 });
  });

  it("with a card that needs 3-D Secure: the retry after the timeout gets the same authentication, not a new intent", async () => {
    await h.emulator.faults({ gate: true });
    const shopper = await h.shopper();
    const key = newKey();
    const body = cart("pm_card_threeDSecure2Required");
    expectUnavailable(await shopper.checkout(key, body));
    await openGate();
    await waitFor(
      "the PaymentIntent to be created at the provider",
      async () => (await h.emulator.ledger()).length === 1,
      10_000,
    );
    const [created] = await h.emulator.ledger();
    expect(created).toMatchObject({ status: "requires_action" });

    const waiting = await shopper.checkout(key, body);
    expect(waiting.status).toBe(202);
    expect(waiting.body).toMatchObject({ status: "requires_action", nextAction: { type: "redirect" } });
    const stats = await h.emulator.stats();
    expect(stats).toMatchObject({ charges: 0, authenticationsRequired: 1 });
    expect(stats.replayed).toBeGreaterThanOrEqual(1);
    expect(await h.emulator.ledger()).toHaveLength(1);
    expect(await h.db.order(waiting.body.orderId)).toMatchObject({
      status: "pending",
      payment_intent_id: created!.id,
    });
  });
});
