import { describe, expect, it } from "vitest";
import { killDuringPayment } from "./helpers/crash";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, sleep, waitFor, type CheckoutBody, type Shopper } from "./helpers/shopper";

/**
 * The server process dies (kill -9) in the middle of a payment and comes back.
 * The shopper's retries with the same key are answered 409 while the dead
 * owner's claim is younger than the in-progress TTL, and after it the claim is
 * retaken: the payment converges on the provider's one PaymentIntent, whatever
 * the provider did after the caller died (it completes the call regardless).
 */
// Long, so a loaded machine's restart (measured up to 15 s) never reaches it; the test
// then ages the claim past it by the database's clock instead of waiting.
const TTL_MS = 60_000;
const h = useTestApp({
  IDEMPOTENCY_IN_PROGRESS_TTL_MS: String(TTL_MS),
  STRIPE_TIMEOUT_MS: "5000", // below the TTL
  STRIPE_MAX_NETWORK_RETRIES: "0",
});

/** Kills the server with SIGKILL while its Stripe call is held at the gate (see killDuringPayment), and starts it again. */
async function crashDuringPayment(shopper: Shopper, key: string, body: CheckoutBody = cart()) {
  const killedPid = await killDuringPayment(h, shopper, key, body);
  const restartStarted = performance.now();
  await h.app.restart();
  const restartMs = performance.now() - restartStarted;
  expect(h.app.app.pid).not.toBe(killedPid);
  return { restartMs };
}

/** The dead owner's claim is still younger than the TTL: a retry is answered 409 at once. */
async function expectRetryRefusedWhileLocked(shopper: Shopper, key: string, body: CheckoutBody = cart()) {
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
  const early = await shopper.checkout(key, body);
  expect(early.status).toBe(409);
  expect(early.body.error).toBe("in_progress");
  expect(early.headers.get("retry-after")).toBe(String(early.body.retryAfterSeconds));
  expect(early.ms).toBeLessThan(1_000);
  return { lockAgeMs, first409Ms: early.ms };
}

/**
 * Ages the dead owner's claim past the TTL by the database's clock (the one
 * claims are judged by), as if the shopper had come back that much later.
 */
async function agePastTtl(shopper: Shopper, key: string) {
  expect((await h.db.ageAttempt(shopper.customerId!, key, TTL_MS)).lock_age_ms).toBeGreaterThan(TTL_MS);
}

/**
 * The shopper's retry once the claim is retakeable. Normally it retakes the
 * claim itself and answers 201; a background reconciler (docs/contract.md §3 step 6) may
 * have got there first, so a 409 while it works, or a replayed 201, is fine.
 */
async function retryPastTtl(shopper: Shopper, key: string, body: CheckoutBody = cart()) {
  for (let i = 0; ; i++) {
    const answer = await shopper.checkout(key, body);
    if (answer.status !== 409 || i === 10) return answer;
    await sleep(500);
  }
}

describe("a shopper whose server crashes mid-payment", () => {
  it("during the charge: retries get 409 until the TTL, then the retaken claim finds the charge that landed; one PaymentIntent", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const { restartMs } = await crashDuringPayment(shopper, key); // the create-and-confirm (the charge) in flight

    const { lockAgeMs, first409Ms } = await expectRetryRefusedWhileLocked(shopper, key);

    // The provider completes the charge even though its caller is dead.
    await waitFor("the orphaned charge to land", async () => (await h.emulator.stats()).charges === 1, 10_000);
    const [charged] = await h.emulator.ledger();
    expect(charged).toMatchObject({ status: "succeeded" });
    const order = (await h.db.ordersOf(shopper.customerId!))[0]!;
    expect(order).toMatchObject({ status: "pending", payment_intent_id: null }); // the app died before learning it

    await agePastTtl(shopper, key);
    const retry = await retryPastTtl(shopper, key);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ orderId: order.id, status: "paid", paymentIntentId: charged!.id });

    const stats = await h.emulator.stats();
    expect(stats).toMatchObject({ charges: 1, delayed: 1 }); // the new owner charged nothing...
    expect(stats.replayed).toBeGreaterThanOrEqual(1); // ...Stripe replayed the create under the attempt's key
    const ledger = await h.emulator.ledger();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ id: charged!.id, status: "succeeded" });
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({
      status: "completed",
      attempts: 2,
      response_status: 201,
    });
    expect(await h.db.order(order.id)).toMatchObject({ status: "paid", payment_intent_id: charged!.id });
    expect((await shopper.checkout(key, cart())).headers.get("idempotent-replayed")).toBe("true");
    console.log(
      `[crash during charge] restart ${Math.round(restartMs)} ms; lock age at first retry ${Math.round(lockAgeMs)} ms; 409 in ${Math.round(first409Ms)} ms`,
    );
  });

  it("during a charge the bank declines: after the TTL the retaken claim gets Stripe's stored decline, nothing charged", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const declined = cart("pm_card_chargeDeclinedInsufficientFunds");
    const { restartMs } = await crashDuringPayment(shopper, key, declined);

    const { lockAgeMs, first409Ms } = await expectRetryRefusedWhileLocked(shopper, key, declined);

    await waitFor("the orphaned decline to land", async () => (await h.emulator.stats()).declines === 1, 10_000);
    const [orphan] = await h.emulator.ledger();
    expect(orphan).toMatchObject({ status: "requires_payment_method" });
    const order = (await h.db.ordersOf(shopper.customerId!))[0]!;
    expect(order).toMatchObject({ status: "pending", payment_intent_id: null }); // the app died before recording it

    await agePastTtl(shopper, key);
    const retry = await retryPastTtl(shopper, key, declined);
    expect(retry.status).toBe(402);
    expect(retry.body).toMatchObject({ error: "card_declined", declineCode: "insufficient_funds", orderId: order.id });

    const stats = await h.emulator.stats();
    expect(stats).toMatchObject({ charges: 0, declines: 1 }); // the bank was asked once
    expect(stats.replayed).toBeGreaterThanOrEqual(1); // the decline was replayed under the attempt's key
    const ledger = await h.emulator.ledger();
    expect(ledger).toHaveLength(1);
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "failed", attempts: 2 });
    expect(await h.db.order(order.id)).toMatchObject({ status: "failed", decline_code: "insufficient_funds" });
    console.log(
      `[crash during a declined charge] restart ${Math.round(restartMs)} ms; lock age at first retry ${Math.round(lockAgeMs)} ms; 409 in ${Math.round(first409Ms)} ms`,
    );
  });
});
