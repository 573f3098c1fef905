import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, type Answer } from "./helpers/shopper";

/**
 * The payment provider failing transiently or losing its answer, with the
 * app's default Stripe client (20 s timeout, 2 network retries). Each fault is
 * checked against the emulator's own counters, so a test cannot pass because
 * the fault silently never fired.
 */
const h = useTestApp();

function expectUnavailable(answer: Answer) {
  expect(answer.status).toBe(503);
  expect(answer.body).toEqual({
    error: "payment_unavailable",
    message: expect.any(String),
    retryAfterSeconds: expect.any(Number),
  });
  expect(answer.headers.get("retry-after")).toBe(String(answer.body.retryAfterSeconds));
  expect(answer.body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(answer.headers.get("idempotent-replayed")).toBeNull();
}

describe("a shopper whose payment provider fails transiently", () => {
  // stripe-node retries 5xx by itself (2 retries: 3 calls), so 3 failures beat
  // its retries within one request of ours; it does not retry 429, so there
  // each of the shopper's retries meets one of the 3 failures.
  it.each([
    [500, 1],
    [503, 1],
    [429, 3],
  ] as const)(
    "%i ×3: gets 503 payment_unavailable with Retry-After, and a retry with the same key pays once",
    async (status, expectedUnavailable) => {
      await h.emulator.faults({ failNext: { status, times: 3 } });
      const shopper = await h.shopper();
      const key = newKey();

      const answers: Answer[] = [];
      for (let i = 0; i < 6; i++) {
        const answer = await shopper.checkout(key, cart());
        answers.push(answer);
        if (answer.status !== 503) break;
      }
      const unavailable = answers.slice(0, -1);
      const paid = answers.at(-1)!;
      expect(unavailable).toHaveLength(expectedUnavailable);
      unavailable.forEach(expectUnavailable);
      expect(paid.status).toBe(201);
      expect(paid.headers.get("idempotent-replayed")).toBeNull();

      const snapshot = await h.emulator.snapshot();
      expect(snapshot.failNext).toBeNull(); // every injected failure was spent...
      expect(snapshot.stats).toMatchObject({ failedInjected: 3, charges: 1 }); // ...on a real request
      const ledger = await h.emulator.ledger();
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({ id: paid.body.paymentIntentId, status: "succeeded" });

      // Meanwhile the attempt stayed retakeable: one record, one order, finally completed.
      expect(await h.db.stored(shopper.customerId, key)).toEqual({ keys: 1, orders: 1 });
      expect(await h.db.record(shopper.customerId!, key)).toMatchObject({
        status: "completed",
        attempts: expectedUnavailable + 1,
      });
      expect(await h.db.order(paid.body.orderId)).toMatchObject({
        status: "paid",
        payment_intent_id: paid.body.paymentIntentId,
      });

      const replay = await shopper.checkout(key, cart());
      expect(replay.status).toBe(201);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.body).toEqual(paid.body);
    },
  );
});

describe("a shopper whose answer from the provider is lost after the charge", () => {
  it("still gets the one order: the dropped connection is recovered under the same Stripe key, one PaymentIntent", async () => {
    await h.emulator.faults({ dropAfterCharge: 1 });
    const shopper = await h.shopper();
    const key = newKey();

    // The app may see the lost answer (503) or, as stripe-node retries a reset
    // connection with the same Idempotency-Key, the replayed success.
    let answer = await shopper.checkout(key, cart());
    const firstStatus = answer.status;
    if (answer.status === 503) answer = await shopper.checkout(key, cart());
    expect(answer.status).toBe(201);

    const stats = await h.emulator.stats();
    expect(stats.dropped).toBe(1); // the connection really died after the charge
    expect(stats.charges).toBe(1);
    expect(stats.replayed).toBeGreaterThanOrEqual(1); // and was answered from Stripe's idempotency store

    const retry = await shopper.checkout(key, cart());
    expect(retry.status).toBe(201);
    expect(retry.body.orderId).toBe(answer.body.orderId);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");

    const ledger = await h.emulator.ledger();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ id: answer.body.paymentIntentId, status: "succeeded" });
    expect(await h.db.ordersOf(shopper.customerId!)).toHaveLength(1);
    console.log(`[dropAfterCharge] the shopper's first answer was ${firstStatus}`);
  });
});
