import { randomUUID } from "node:crypto";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { deriveId, downstreamKey, fingerprint, IdempotencyEngine } from "@checkout/idempotency";
import { TestDb } from "../../tests/helpers/db";
import { createOwnDatabase, type OwnDatabase } from "../../tests/helpers/own-database";
import type { PrismaClient } from "../generated/prisma/client";
import { createPrismaClient, engineDatabase, poolOf } from "../db";
import { createStripeClient } from "../payments/stripe-client";
import { orderRefunds, poolTransaction, refundGate, syncLedger } from "./ledger";
import { OPERATOR_SUBJECT, REFUND_ENDPOINT, type RefundRequest } from "./operator-refund";
import { reconcileAbandonedRefunds, refundReconcileDeps, type RefundReconcileDeps } from "./reconcile";

/**
 * The refund reconciler against a real database and the emulator through the
 * real SDK: an operator's refund whose process died after its claim, before
 * or after its call to Stripe, is finished with exactly one Stripe refund.
 * The dead process is its claim left as the claim leaves it (the amount
 * reserved, the ledger row pending), and, after Stripe, the refund Stripe
 * made for the attempt's derived key; the operator's absence is the claim
 * aged past the TTL. A database of its own: the reconciler finishes every
 * abandoned refund it finds.
 */
const TTL_MS = 30_000;
const AMOUNT = 6800;
let database: OwnDatabase;
let db: TestDb;
let prisma: PrismaClient;
let emulator: StripeEmulator;
let stripe: Stripe;
let deps: RefundReconcileDeps;

beforeAll(async () => {
  database = await createOwnDatabase("refundreconcile");
  db = new TestDb(database.url);
  prisma = createPrismaClient(database.url);
  emulator = await startStripeEmulator({ port: 0 });
  stripe = createStripeClient({ secretKey: "sk_test_refunds", apiBase: emulator.url, maxNetworkRetries: 0 });
  deps = refundReconcileDeps({
    prisma,
    stripe,
    idempotency: new IdempotencyEngine(engineDatabase(prisma), {
      inProgressTtlMs: TTL_MS,
      retentionHours: 24,
      attemptDeadlineMs: 1_800_000,
    }),
  });
});
afterAll(async () => {
  await emulator.close();
  await prisma.$disconnect();
  await db.close();
  await database.drop();
});

/** A paid order: its PaymentIntent succeeded at the emulator. */
async function paidOrder() {
  const intent = await stripe.paymentIntents.create({
    amount: AMOUNT,
    currency: "usd",
    payment_method: "pm_card_visa",
    allowed_payment_method_types: ["card"],
    confirm: true,
  });
  expect(intent.status).toBe("succeeded");
  const customer = await prisma.customer.create({ data: {} });
  const order = await prisma.order.create({
    data: { customerId: customer.id, amountCents: AMOUNT, currency: "usd", status: "paid", paymentIntentId: intent.id },
  });
  return { orderId: order.id, paymentIntentId: intent.id };
}

/** The claim the route makes for a press of Refund, left behind by a process that died with it. */
async function abandonedClaim(orderId: string, amountCents: number | null, key: string = randomUUID()) {
  const scope = { subjectId: OPERATOR_SUBJECT, endpoint: REFUND_ENDPOINT, key };
  const body: RefundRequest = { orderId, amountCents, reason: "damaged" };
  // Another process's claim: this process's engine answers its own running claims from memory.
  const deadProcess = new IdempotencyEngine(engineDatabase(prisma), {
    inProgressTtlMs: TTL_MS,
    retentionHours: 24,
    attemptDeadlineMs: 1_800_000,
  });
  const claim = await deadProcess.claim(
    scope,
    fingerprint(body),
    refundGate(orderId, amountCents, "damaged", deriveId(REFUND_ENDPOINT, scope)),
  );
  expect(claim.kind).toBe("claimed");
  return { key, scope };
}

/** The operator stayed away past the TTL: the claim is due for the reconciler. */
async function stayAway(key: string) {
  const aged = await db.ageAttempt(OPERATOR_SUBJECT, key, TTL_MS + 1_000);
  expect(aged.lock_age_ms).toBeGreaterThan(TTL_MS);
}

async function stored(key: string) {
  return prisma.idempotencyKey.findFirstOrThrow({
    where: { subjectId: OPERATOR_SUBJECT, endpoint: REFUND_ENDPOINT, key },
    select: { status: true, responseStatus: true, responseBody: true },
  });
}

const nothing = { refunded: 0, refused: 0, abandoned: 0, unknown: 0, skipped: 0 };

describe("an operator's refund abandoned mid-way", () => {
  it("died after the claim, before Stripe: the reconciler makes the one refund and stores its answer", async () => {
    const { orderId, paymentIntentId } = await paidOrder();
    const { key } = await abandonedClaim(orderId, 700);
    // Nothing is due before the TTL: its owner may still be at Stripe.
    expect(await reconcileAbandonedRefunds(deps)).toEqual(nothing);
    await stayAway(key);
    expect(await reconcileAbandonedRefunds(deps)).toEqual({ ...nothing, refunded: 1 });
    const refunds = (await stripe.refunds.list({ payment_intent: paymentIntentId })).data;
    expect(refunds.map((r) => [r.amount, r.status, r.metadata?.attempt_key])).toEqual([[700, "succeeded", key]]);
    const answer = await stored(key);
    expect(answer.status).toBe("completed");
    expect(answer.responseStatus).toBe(201);
    expect(JSON.parse(answer.responseBody!)).toMatchObject({
      stripeRefundId: refunds[0]!.id,
      amountCents: 700,
      status: "succeeded",
      remainingCents: AMOUNT - 700,
    });
    // Finished: another pass finds nothing, and Stripe still has one refund.
    expect(await reconcileAbandonedRefunds(deps)).toEqual(nothing);
    expect((await stripe.refunds.list({ payment_intent: paymentIntentId })).data).toHaveLength(1);
  });

  it("died after Stripe refunded, before it wrote the answer: the retake adopts that refund from Stripe's list", async () => {
    const { orderId, paymentIntentId } = await paidOrder();
    const { key, scope } = await abandonedClaim(orderId, null);
    const row = await prisma.refund.findFirstOrThrow({ where: { orderId } });
    // What the dead process sent: the attempt's derived key, its ledger row in the metadata.
    const made = await stripe.refunds.create(
      {
        payment_intent: paymentIntentId,
        amount: AMOUNT,
        metadata: { order_id: orderId, refund_ledger_id: row.id, attempt_key: key, reason: "damaged" },
      },
      { idempotencyKey: downstreamKey(deriveId(REFUND_ENDPOINT, scope), "refund") },
    );
    const replayedBefore = await new EmulatorClient(emulator.url).stat("replayed");
    await stayAway(key);
    expect(await reconcileAbandonedRefunds(deps)).toEqual({ ...nothing, refunded: 1 });
    // The retake found the refund in Stripe's list by its ledger id: no second create, not even a replay.
    expect(await new EmulatorClient(emulator.url).stat("replayed")).toBe(replayedBefore);
    const refunds = (await stripe.refunds.list({ payment_intent: paymentIntentId })).data;
    expect(refunds.map((r) => r.id)).toEqual([made.id]);
    expect(JSON.parse((await stored(key)).responseBody!)).toMatchObject({
      stripeRefundId: made.id,
      amountCents: AMOUNT,
      remainingCents: 0,
    });
    expect(await orderRefunds(engineDatabase(prisma), orderId)).toMatchObject({
      refundedCents: AMOUNT,
      remainingCents: 0,
      refunds: [{ id: row.id, stripeRefundId: made.id, status: "succeeded" }],
    });
  });

  it("a claim that reserved nothing (the amount did not fit) is forgotten: nothing goes to Stripe", async () => {
    const { orderId, paymentIntentId } = await paidOrder();
    const { key } = await abandonedClaim(orderId, AMOUNT + 1);
    await stayAway(key);
    expect(await reconcileAbandonedRefunds(deps)).toEqual({ ...nothing, abandoned: 1 });
    expect(
      await prisma.idempotencyKey.count({ where: { subjectId: OPERATOR_SUBJECT, endpoint: REFUND_ENDPOINT, key } }),
    ).toBe(0);
    expect((await stripe.refunds.list({ payment_intent: paymentIntentId })).data).toEqual([]);
  });
});

/** What a failover that lost the latest commits does to an attempt: its claim, its ledger row and its hold gone. */
async function loseAttempt(orderId: string, key: string) {
  await prisma.refund.deleteMany({ where: { orderId } });
  await prisma.idempotencyKey.deleteMany({ where: { subjectId: OPERATOR_SUBJECT, endpoint: REFUND_ENDPOINT, key } });
  await prisma.order.update({ where: { id: orderId }, data: { refundHeldCents: 0 } });
}

/** The refund the dead process made: the attempt's derived key, its ledger row (the attempt's id) in the metadata. */
async function refundAtStripe(orderId: string, paymentIntentId: string, key: string, amount: number) {
  const scope = { subjectId: OPERATOR_SUBJECT, endpoint: REFUND_ENDPOINT, key };
  const attemptId = deriveId(REFUND_ENDPOINT, scope);
  return stripe.refunds.create(
    {
      payment_intent: paymentIntentId,
      amount,
      metadata: { order_id: orderId, refund_ledger_id: attemptId, attempt_key: key, reason: "damaged" },
    },
    { idempotencyKey: downstreamKey(attemptId, "refund") },
  );
}

describe("an operator's refund retaken after Stripe forgot its key (24 hours)", () => {
  it("adopts the refund Stripe made from its list, and makes no second one", async () => {
    const { orderId, paymentIntentId } = await paidOrder();
    const { key } = await abandonedClaim(orderId, 3000);
    const made = await refundAtStripe(orderId, paymentIntentId, key, 3000);
    const control = new EmulatorClient(emulator.url);
    await control.faults({ idempotencyKeyTtlMs: 1 }); // Stripe keeps a key 24 hours: here, a millisecond
    try {
      // Shown forgotten: the same key and request now make a second refund at Stripe (undone below).
      await new Promise((resolve) => setTimeout(resolve, 5));
      const attemptId = deriveId(REFUND_ENDPOINT, { subjectId: OPERATOR_SUBJECT, endpoint: REFUND_ENDPOINT, key });
      const again = await stripe.refunds.create(
        { payment_intent: paymentIntentId, amount: 1, metadata: { probe: "the key is forgotten" } },
        { idempotencyKey: downstreamKey(attemptId, "refund") },
      );
      expect(again.id).not.toBe(made.id);
      await stayAway(key);
      expect(await reconcileAbandonedRefunds(deps)).toEqual({ ...nothing, refunded: 1 });
    } finally {
      await control.faults({ idempotencyKeyTtlMs: 24 * 60 * 60 * 1000 });
    }
    const refunds = (await stripe.refunds.list({ payment_intent: paymentIntentId })).data;
    expect(refunds).toHaveLength(2); // the dead process's, and the probe's above: none from the retake
    expect(JSON.parse((await stored(key)).responseBody!)).toMatchObject({ stripeRefundId: made.id, amountCents: 3000 });
  });
});

describe("an operator's refund whose claim the database lost after Stripe refunded (a failover)", () => {
  it("claimed again with its key before Stripe's news: the retake adopts the one refund from Stripe's list", async () => {
    const { orderId, paymentIntentId } = await paidOrder();
    const { key } = await abandonedClaim(orderId, null);
    const made = await refundAtStripe(orderId, paymentIntentId, key, AMOUNT);
    await loseAttempt(orderId, key);
    await abandonedClaim(orderId, null, key);
    const replayedBefore = await new EmulatorClient(emulator.url).stat("replayed");
    await stayAway(key);
    expect(await reconcileAbandonedRefunds(deps)).toEqual({ ...nothing, refunded: 1 });
    // The retake found the refund in Stripe's list by its ledger id: no second create, not even a replay.
    expect(await new EmulatorClient(emulator.url).stat("replayed")).toBe(replayedBefore);
    expect((await stripe.refunds.list({ payment_intent: paymentIntentId })).data.map((r) => r.id)).toEqual([made.id]);
    expect(JSON.parse((await stored(key)).responseBody!)).toMatchObject({ stripeRefundId: made.id, remainingCents: 0 });
  });

  it("claimed again after Stripe's news recorded the refund: the attempt adopts that row, nothing is reserved twice", async () => {
    const { orderId, paymentIntentId } = await paidOrder();
    const { key } = await abandonedClaim(orderId, null);
    const made = await refundAtStripe(orderId, paymentIntentId, key, AMOUNT);
    await loseAttempt(orderId, key);
    // The news (refund.created, the catch-up) records it under the ledger id in its metadata.
    await syncLedger(poolTransaction(poolOf(prisma)), orderId, [
      {
        id: made.id,
        amount: AMOUNT,
        status: "succeeded",
        failureReason: null,
        ledgerId: made.metadata!.refund_ledger_id!,
        source: "provider",
      },
    ]);
    // The claim again: nothing remains to reserve, and the row is the attempt's.
    await abandonedClaim(orderId, null, key);
    await stayAway(key);
    expect(await reconcileAbandonedRefunds(deps)).toEqual({ ...nothing, refunded: 1 });
    expect((await stripe.refunds.list({ payment_intent: paymentIntentId })).data.map((r) => r.id)).toEqual([made.id]);
    expect(JSON.parse((await stored(key)).responseBody!)).toMatchObject({
      stripeRefundId: made.id,
      amountCents: AMOUNT,
      remainingCents: 0,
    });
    expect(await orderRefunds(engineDatabase(prisma), orderId)).toMatchObject({
      refundedCents: AMOUNT,
      refunds: [{ stripeRefundId: made.id, source: "operator", status: "succeeded" }],
    });
  });
});
