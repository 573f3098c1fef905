import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { ReconcileOutcome } from "@/lib/checkout/reconcile";
import { killDuringPayment } from "./helpers/crash";
import { useTestApp } from "./helpers/harness";
import { randomUUID } from "node:crypto";
import { attemptId } from "@/lib/checkout/attempt-id";
import { CHECKOUT_ENDPOINT } from "@/lib/checkout/request";
import { fingerprint } from "@checkout/idempotency";
import { CART_TOTAL_CENTS, cart, newKey, waitFor, type Shopper } from "./helpers/shopper";

/**
 * The server dies (kill -9) mid-payment and the shopper never comes back:
 * nobody retries. `npm run reconcile` — a separate process, as cron runs it —
 * finds the attempt once its claim is older than the in-progress TTL, takes it
 * over with the fenced compare-and-set and drives it on with the same
 * downstream Stripe keys: the order ends paid with one PaymentIntent, whether
 * or not the charge had reached the provider when the server died.
 *
 * This file has a database of its own: a reconciler takes over every
 * abandoned attempt it finds, including other test files' in the shared one.
 */
// Long enough for the early `npm run reconcile` (a cold tsx start, 20 s and more on a loaded machine) to
// finish inside it; the test ages the claim past it rather than waiting.
const TTL_MS = 120_000;
const h = useTestApp(
  {
    IDEMPOTENCY_IN_PROGRESS_TTL_MS: String(TTL_MS),
    STRIPE_TIMEOUT_MS: "4000", // below the TTL
    STRIPE_MAX_NETWORK_RETRIES: "0",
    MAINTENANCE_INTERVAL_MS: "0", // no in-process reconciler: only the command below finishes attempts
  },
  { ownDatabase: "reconcile" },
);

interface ReconcileRun {
  counts: Record<ReconcileOutcome, number>;
  /** The JSON log lines of its "reconcile" events. */
  events: Array<{ outcome: ReconcileOutcome; recordId: string; key: string; customerId: string }>;
}

/** Runs `npm run reconcile` against the test app's database and emulator, with the app's TTL. */
async function runReconciler(): Promise<ReconcileRun> {
  const { stdout } = await promisify(execFile)("npm", ["run", "--silent", "reconcile"], {
    env: { ...process.env, ...h.app.env },
    timeout: 60_000,
  });
  const lines = stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const summary = lines.find((line) => line.event === "reconcile_run");
  if (!summary) throw new Error(`npm run reconcile printed no summary:\n${stdout}`);
  const { event: _event, ...counts } = summary;
  return {
    counts: counts as ReconcileRun["counts"],
    events: lines.filter((line) => line.event === "reconcile") as ReconcileRun["events"],
  };
}

const nothing = { paid: 0, declined: 0, failed: 0, waiting: 0, unknown: 0, abandoned: 0, skipped: 0 };

/** The reconciler leaves a claim younger than the TTL alone (its owner may still be charging), then finishes it. */
async function reconcileAfterTtl(shopper: Shopper, key: string): Promise<ReconcileRun> {
  const early = await runReconciler();
  const age = (await h.db.record(shopper.customerId!, key))!.lock_age_ms!;
  expect(age).toBeLessThan(TTL_MS); // or "early" was not early
  expect(early.counts).toEqual(nothing);
  expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "in_progress", attempts: 1 });

  // Past the TTL by the database's clock: the claim ages, as if its dead owner had been silent that long.
  const aged = await h.db.ageAttempt(shopper.customerId!, key, TTL_MS);
  expect(aged.lock_age_ms).toBeGreaterThan(TTL_MS);
  expect(aged.age_ms).toBeGreaterThan(TTL_MS); // the reconciler's first look at an attempt comes a TTL after it began
  const run = await runReconciler();
  expect(run.counts).toEqual({ ...nothing, paid: 1 });
  const record = (await h.db.record(shopper.customerId!, key))!;
  expect(run.events).toEqual([
    expect.objectContaining({ outcome: "paid", recordId: record.id, key, customerId: shopper.customerId }),
  ]);
  expect(record).toMatchObject({ status: "completed", attempts: 2, response_status: 201, lock_token: null });
  return run;
}

/** What the shopper sees whenever they come back: the stored confirmation, and no new charge. */
async function expectShopperSeesConfirmation(
  shopper: Shopper,
  key: string,
  order: { id: string; paymentIntentId: string },
) {
  await h.app.restart();
  expect((await shopper.attempt(key)).body).toMatchObject({
    status: "completed",
    response: { statusCode: 201, body: { orderId: order.id } },
  });
  const later = await shopper.checkout(key, cart());
  expect(later.status).toBe(201);
  expect(later.headers.get("idempotent-replayed")).toBe("true");
  expect(later.body).toMatchObject({ orderId: order.id, status: "paid", paymentIntentId: order.paymentIntentId });
  expect(await runReconciler()).toMatchObject({ counts: nothing }); // nothing left to do
  expect((await h.emulator.stats()).charges).toBe(1);
}

// Each test runs the reconciler three times (60 s each at most) and restarts the server.
describe("npm run reconcile after a crash, with no retry from the shopper", { timeout: 240_000 }, () => {
  it("the charge had landed: the order ends paid with that one PaymentIntent, and nothing is charged again", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    await killDuringPayment(h, shopper, key); // the create-and-confirm (the charge) in flight; the server stays dead

    await waitFor("the orphaned charge to land", async () => (await h.emulator.stats()).charges === 1, 10_000);
    const [charged] = await h.emulator.ledger();
    const [pending] = await h.db.ordersOf(shopper.customerId!);
    expect(pending).toMatchObject({ status: "pending", payment_intent_id: null }); // the app died before learning it

    await reconcileAfterTtl(shopper, key);

    const stats = await h.emulator.stats();
    expect(stats).toMatchObject({ charges: 1, delayed: 1 });
    expect(stats.replayed).toBeGreaterThanOrEqual(1); // the create was replayed under the attempt's key
    const ledger = await h.emulator.ledger();
    expect(ledger).toEqual([expect.objectContaining({ id: charged!.id, status: "succeeded" })]);
    expect(await h.db.order(pending!.id)).toMatchObject({ status: "paid", payment_intent_id: charged!.id });
    await expectShopperSeesConfirmation(shopper, key, { id: pending!.id, paymentIntentId: charged!.id });
  });

  it("the server died after writing the order, before its call to the provider: the reconciler charges once", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const orderId = attemptId({ subjectId: shopper.customerId!, endpoint: CHECKOUT_ENDPOINT, key });
    // What the claim and the order's insert leave behind, the owner's lock still on it.
    await h.db.insertAttempt({
      recordId: randomUUID(),
      customerId: shopper.customerId!,
      key,
      orderId,
      amountCents: CART_TOTAL_CENTS,
      paymentMethod: "pm_card_visa",
      locked: true,
      requestHash: fingerprint(cart()),
    });
    await h.app.app.stop("SIGKILL");
    expect(await h.emulator.ledger()).toHaveLength(0);

    await reconcileAfterTtl(shopper, key);

    const stats = await h.emulator.stats();
    expect(stats.charges).toBe(1);
    const ledger = await h.emulator.ledger();
    expect(ledger).toEqual([
      expect.objectContaining({ status: "succeeded", metadata: expect.objectContaining({ orderId }) }),
    ]);
    expect(await h.db.order(orderId)).toMatchObject({ status: "paid", payment_intent_id: ledger[0]!.id });
    await expectShopperSeesConfirmation(shopper, key, { id: orderId, paymentIntentId: ledger[0]!.id });
  });
});
