import { describe, expect, it } from "vitest";
import { killDuringPayment } from "./helpers/crash";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, sleep, waitFor, type Shopper } from "./helpers/shopper";

/**
 * The server process dies (kill -9) in the middle of a payment and comes back.
 * The shopper's retries with the same key are answered 409 while the dead
 * owner's claim is younger than the in-progress TTL, and after it the claim is
 * retaken: the payment converges on the provider's one PaymentIntent, whatever
 * the provider did after the caller died (it completes the call regardless).
 */
const TTL_MS = 15_000;
const LATENCY_MS = 3_000;
const h = useTestApp({
  IDEMPOTENCY_IN_PROGRESS_TTL_MS: String(TTL_MS),
  STRIPE_TIMEOUT_MS: "5000", // above LATENCY_MS, so a live owner is never cut off; below the TTL
  STRIPE_MAX_NETWORK_RETRIES: "0",
});

/** Kills the server with SIGKILL once `inFlight` Stripe writes have started, and starts it again. */
async function crashDuringPayment(shopper: Shopper, key: string, inFlight: 1 | 2) {
  const killedPid = await killDuringPayment(h, shopper, key, inFlight, LATENCY_MS);
  const restartStarted = performance.now();
  await h.app.restart();
  const restartMs = performance.now() - restartStarted;
  expect(h.app.app.pid).not.toBe(killedPid);
  return { restartMs };
}

/** The dead owner's claim is still younger than the TTL: a retry is answered 409 at once. */
async function expectRetryRefusedWhileLocked(shopper: Shopper, key: string) {
  expect(await h.db.record(shopper.customerId!, key)).toMatchObject({
    status: "in_progress",
    attempts: 1,
    lock_token: expect.any(String),
  });
  // The attempt survived the crash. These also warm the fresh server (its
  // first requests load route modules and open database connections).
  expect((await shopper.attempt(key)).body).toEqual({ status: "in_progress" });
  const otherCart = cart("pm_card_visa", [{ sku: "notebook-a5", quantity: 1 }]);
  expect((await shopper.checkout(key, otherCart)).status).toBe(422);

  const lockAgeMs = (await h.db.record(shopper.customerId!, key))!.lock_age_ms!;
  expect(lockAgeMs).toBeLessThan(TTL_MS - 1_000); // or the 409 below would race the TTL
  const early = await shopper.checkout(key, cart());
  expect(early.status).toBe(409);
  expect(early.body.error).toBe("in_progress");
  expect(early.headers.get("retry-after")).toBe(String(early.body.retryAfterSeconds));
  expect(early.ms).toBeLessThan(1_000);
  return { lockAgeMs, first409Ms: early.ms };
}

/** Sleeps until the claim is older than the TTL, by the database's clock (the one claims are judged by). */
async function waitPastTtl(shopper: Shopper, key: string) {
  const age = (await h.db.record(shopper.customerId!, key))!.lock_age_ms!;
  await sleep(Math.max(0, TTL_MS - age + 250));
}

/**
 * The shopper's retry once the claim is retakeable. Normally it retakes the
 * claim itself and answers 201; a background reconciler (docs/contract.md §3 step 6) may
 * have got there first, so a 409 while it works, or a replayed 201, is fine.
 */
async function retryPastTtl(shopper: Shopper, key: string) {
  for (let i = 0; ; i++) {
    const answer = await shopper.checkout(key, cart());
    if (answer.status !== 409 || i === 10) return answer;
    await sleep(500);
  }
}

describe("a shopper whose server crashes mid-payment", () => {
  it("during the charge: retries get 409 until the TTL, then the retaken claim finds the charge that landed; one PaymentIntent", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const { restartMs } = await crashDuringPayment(shopper, key, 2); // create done, confirm (the charge) in flight

    const { lockAgeMs, first409Ms } = await expectRetryRefusedWhileLocked(shopper, key);

    // The provider completes the charge even though its caller is dead.
    await waitFor("the orphaned charge to land", async () => (await h.emulator.stats()).charges === 1, 10_000);
    const order = (await h.db.ordersOf(shopper.customerId!))[0]!;
    expect(order).toMatchObject({ status: "pending", payment_intent_id: expect.stringMatching(/^pi_/) });

    await waitPastTtl(shopper, key);
    const retry = await retryPastTtl(shopper, key);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ orderId: order.id, status: "paid", paymentIntentId: order.payment_intent_id });

    const stats = await h.emulator.stats();
    expect(stats).toMatchObject({ charges: 1, delayed: 2 }); // the new owner charged nothing
    const ledger = await h.emulator.ledger();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ id: order.payment_intent_id, status: "succeeded" });
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({
      status: "completed",
      attempts: 2,
      response_status: 201,
    });
    expect(await h.db.order(order.id)).toMatchObject({ status: "paid" });
    expect((await shopper.checkout(key, cart())).headers.get("idempotent-replayed")).toBe("true");
    console.log(
      `[crash during charge] restart ${Math.round(restartMs)} ms; lock age at first retry ${Math.round(lockAgeMs)} ms; 409 in ${Math.round(first409Ms)} ms`,
    );
  });

  it("while creating the PaymentIntent: after the TTL the retaken claim gets the same PaymentIntent back and charges it once", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const { restartMs } = await crashDuringPayment(shopper, key, 1); // the create is in flight

    const { lockAgeMs, first409Ms } = await expectRetryRefusedWhileLocked(shopper, key);

    await waitFor(
      "the orphaned PaymentIntent to be created",
      async () => (await h.emulator.ledger()).length === 1,
      10_000,
    );
    const [orphan] = await h.emulator.ledger();
    expect(orphan).toMatchObject({ status: "requires_confirmation" });
    const order = (await h.db.ordersOf(shopper.customerId!))[0]!;
    expect(order).toMatchObject({ status: "pending", payment_intent_id: null }); // the app died before recording it

    await waitPastTtl(shopper, key);
    const retry = await retryPastTtl(shopper, key);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ orderId: order.id, paymentIntentId: orphan!.id });

    const stats = await h.emulator.stats();
    expect(stats.charges).toBe(1);
    expect(stats.replayed).toBeGreaterThanOrEqual(1); // the create was replayed under the derived Stripe key
    const ledger = await h.emulator.ledger();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ id: orphan!.id, status: "succeeded" });
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "completed", attempts: 2 });
    console.log(
      `[crash during create] restart ${Math.round(restartMs)} ms; lock age at first retry ${Math.round(lockAgeMs)} ms; 409 in ${Math.round(first409Ms)} ms`,
    );
  });
});
