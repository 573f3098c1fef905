import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { deriveId, IdempotencyEngine, pgDatabase, type Database } from "@checkout/idempotency";
import { createPrismaClient, engineDatabase, poolOf } from "../db";
import { orderRefunds, poolTransaction, refundGate, settleAttemptRefund, syncLedger, type Transaction } from "./ledger";
import { OPERATOR_SUBJECT, REFUND_ENDPOINT } from "./operator-refund";

/**
 * The ledger's writers under the order row's lock: an attempt settling its
 * refund while Stripe's news of the same refund is being written. Each test
 * holds the news's transaction open until the settle is seen waiting on it.
 */
const prisma = createPrismaClient(inject("databaseUrl"));
const pool = poolOf(prisma);
const db = engineDatabase(prisma);
const engine = new IdempotencyEngine(db, { inProgressTtlMs: 60_000, retentionHours: 24, attemptDeadlineMs: 1_800_000 });
afterAll(() => prisma.$disconnect());

const AMOUNT = 6800;

/** A paid order and an operator's claim reserving all of it, as the refund route makes them. */
async function reserved() {
  const customer = await prisma.customer.create({ data: {} });
  const order = await prisma.order.create({
    data: {
      customerId: customer.id,
      amountCents: AMOUNT,
      currency: "usd",
      status: "paid",
      paymentIntentId: `pi_${randomUUID()}`,
    },
    select: { id: true },
  });
  const scope = { subjectId: OPERATOR_SUBJECT, endpoint: REFUND_ENDPOINT, key: randomUUID() };
  const claim = await engine.claim(
    scope,
    "0".repeat(64),
    refundGate(order.id, null, null, deriveId(REFUND_ENDPOINT, scope)),
  );
  if (claim.kind !== "claimed") throw new Error(`expected a claim, got ${claim.kind}`);
  const refund = await prisma.refund.findUniqueOrThrow({ where: { idempotencyKeyId: claim.owner.recordId } });
  expect(await held(order.id)).toBe(AMOUNT);
  return { orderId: order.id, owner: claim.owner, refundId: refund.id };
}

async function held(orderId: string): Promise<number> {
  return (await prisma.order.findUniqueOrThrow({ where: { id: orderId } })).refundHeldCents;
}

/** A transaction that runs its work, then waits for `commit()` before committing: the news, held mid-way. */
function heldOpen() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let done!: Promise<void>;
  let workDone!: () => void;
  const worked = new Promise<void>((resolve) => (workDone = resolve));
  const transaction: Transaction = async <T>(work: (db: Database) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    let result!: T;
    done = (async () => {
      try {
        await client.query("begin");
        result = await work(pgDatabase(client));
        workDone();
        await released;
        await client.query("commit");
      } finally {
        client.release();
      }
    })();
    await worked;
    return result;
  };
  return { transaction, commit: async () => (release(), done) };
}

/** Waits until some session's statement waits on a lock (the settle, queued behind the news). */
async function waitingOnLock(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const rows = await prisma.$queryRaw<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and query like '%refunds%'`;
    if (rows[0]!.n > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the settle never waited on the order's lock");
}

const failedNews = (refundId: string) => ({
  id: "re_failed",
  amount: AMOUNT,
  status: "failed",
  failureReason: "expired_or_canceled_card",
  ledgerId: refundId,
  source: "provider" as const,
});

describe("settling an attempt's refund while Stripe's news of it is written", () => {
  it("keeps the news's failure, and the amount remains owed and refundable again", async () => {
    const { orderId, owner, refundId } = await reserved();
    const news = heldOpen();
    // The news (refund.failed) holds the order's lock, its row already failed and the hold recomputed.
    const newlyFailed = await syncLedger(news.transaction, orderId, [failedNews(refundId)]);
    expect(newlyFailed).toHaveLength(1);
    // The attempt's own answer from Stripe (created succeeded) arrives meanwhile.
    const settling = settleAttemptRefund(poolTransaction(pool), owner, refundId, {
      stripeRefundId: "re_failed",
      status: "succeeded",
    });
    await waitingOnLock();
    await news.commit();
    // It reads the row once the news committed: failed is final, so it writes nothing.
    expect(await settling).toBe(false);
    expect(await held(orderId)).toBe(0);
    expect(await orderRefunds(db, orderId)).toMatchObject({
      refundedCents: 0,
      remainingCents: AMOUNT,
      owedCents: AMOUNT,
      refunds: [{ id: refundId, status: "failed", stripeRefundId: "re_failed" }],
    });
  });

  it("derives the hold from the rows when the attempt's refusal settles after news of another refund", async () => {
    const { orderId, owner, refundId } = await reserved();
    const news = heldOpen();
    // A Dashboard refund of 1000 is heard of while the attempt's refusal (canceled) is on its way.
    await syncLedger(news.transaction, orderId, [
      {
        id: "re_dashboard",
        amount: 1000,
        status: "succeeded",
        failureReason: null,
        ledgerId: null,
        source: "provider",
      },
    ]);
    const settling = settleAttemptRefund(poolTransaction(pool), owner, refundId, {
      stripeRefundId: null,
      status: "canceled",
    });
    await waitingOnLock();
    await news.commit();
    expect(await settling).toBe(true);
    // Only the Dashboard's refund holds: what the attempt reserved went back, nothing else did.
    expect(await held(orderId)).toBe(1000);
    expect(await orderRefunds(db, orderId)).toMatchObject({ refundedCents: 1000, remainingCents: AMOUNT - 1000 });
  });

  it("writes nothing once fenced out", async () => {
    const { orderId, owner, refundId } = await reserved();
    const stale = { ...owner, lockToken: randomUUID() };
    expect(
      await settleAttemptRefund(poolTransaction(pool), stale, refundId, { stripeRefundId: null, status: "canceled" }),
    ).toBe(false);
    expect(await held(orderId)).toBe(AMOUNT);
    expect((await orderRefunds(db, orderId))?.refunds).toMatchObject([{ status: "pending" }]);
  });
});

describe("Stripe's news of an operator's refund", () => {
  const news = (ledgerId: string, amount: number) => ({
    id: `re_${randomUUID()}`,
    amount,
    status: "succeeded" as const,
    failureReason: null,
    ledgerId,
    source: "provider" as const,
  });

  it("sets the row's amount to Stripe's: a claim made again after a failover may have reserved another", async () => {
    const { orderId, refundId } = await reserved(); // all 6800 reserved
    await syncLedger(poolTransaction(pool), orderId, [news(refundId, 2500)]);
    const after = (await orderRefunds(db, orderId))!;
    expect(after.refunds.map((r) => [r.amountCents, r.status])).toEqual([[2500, "succeeded"]]);
    expect(after.remainingCents).toBe(AMOUNT - 2500);
    expect(await held(orderId)).toBe(2500);
  });

  it("gives a failed refund's amount back though the order still records Stripe's earlier total", async () => {
    const { orderId, refundId } = await reserved();
    const made = news(refundId, AMOUNT);
    await syncLedger(poolTransaction(pool), orderId, [made]);
    // What the order last heard of Stripe's refunds: all of it (recorded in full, never lowered by a later partial reading).
    await prisma.order.update({ where: { id: orderId }, data: { refundedCents: AMOUNT, refundedAt: new Date() } });
    expect((await orderRefunds(db, orderId))!.remainingCents).toBe(0);
    await syncLedger(poolTransaction(pool), orderId, [
      { ...made, status: "failed", failureReason: "expired_or_canceled_card" },
    ]);
    expect((await orderRefunds(db, orderId))!.remainingCents).toBe(AMOUNT);
    const scope = { subjectId: OPERATOR_SUBJECT, endpoint: REFUND_ENDPOINT, key: randomUUID() };
    const again = await engine.claim(
      scope,
      "0".repeat(64),
      refundGate(orderId, null, null, deriveId(REFUND_ENDPOINT, scope)),
    );
    expect(again.kind).toBe("claimed");
    expect(await held(orderId)).toBe(AMOUNT); // the whole amount reserved again
  });

  it("reaches a row the shop closed itself when Stripe refused a repeat: the refund Stripe made stands", async () => {
    const { orderId, owner, refundId } = await reserved();
    await settleAttemptRefund(poolTransaction(pool), owner, refundId, { stripeRefundId: null, status: "canceled" });
    expect((await orderRefunds(db, orderId))!.remainingCents).toBe(AMOUNT);
    await syncLedger(poolTransaction(pool), orderId, [news(refundId, AMOUNT)]);
    const after = (await orderRefunds(db, orderId))!;
    expect(after.refunds.map((r) => r.status)).toEqual(["succeeded"]);
    expect(after.remainingCents).toBe(0);
  });
});
