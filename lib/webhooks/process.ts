import type Stripe from "stripe";
import { resumeAttempt } from "../checkout/checkout";
import { paymentKeys } from "../payments/attempt-intent";
import {
  recordPartialRefund,
  recordRefund,
  recordRefundFailure,
  refundedAmount,
  refundedInFull,
} from "../checkout/refunds";
import { paymentFailedLater, paymentSucceededLater } from "../checkout/orders";
import { judgeIntent } from "../checkout/intent-ownership";
import { poolOf } from "../db";
import { poolTransaction, syncLedger } from "../refunds/ledger";
import { isUuid } from "../uuid";
import { findPaymentAttempt, type PaymentAttempt } from "./attempt";
import { inSpan } from "../tracing/spans";
import { leaveAlone } from "./not-ours";
import type { WebhookDeps } from "./deps";
import { backoffMs, claimDueEvents, markProcessed, retryLater, type InboxEvent } from "./inbox";
import { refundLateSuccess } from "./late-success";
import { accountForIntent } from "./lost-order";
import { undoStrayIntent } from "./stray-intent";

/**
 * Processing the inbox (docs/contract.md, "Webhooks"). Delivery is at least once and in no
 * particular order, so an event is a hint: for `payment_intent.*` the app
 * asks Stripe for the intent as it is now and acts on that, through the same
 * fenced path as a shopper's retry or the reconciler. An event is either done
 * for good, or due again later with backoff — never lost.
 */
export type Verdict = { done: string } | { later: string };

/** Stripe stops redelivering after three days; an event still waiting then is given up, loudly. */
export const MAX_EVENT_AGE_MS = 3 * 24 * 3_600_000;

export type ProcessCounts = Record<"processed" | "deferred" | "failed" | "expired", number>;

/** Claims due events (or the one `eventId`, if due) and processes each once. */
export async function processDueEvents(
  deps: WebhookDeps,
  options: { limit?: number; eventId?: string } = {},
): Promise<ProcessCounts> {
  const counts: ProcessCounts = { processed: 0, deferred: 0, failed: 0, expired: 0 };
  const events = await claimDueEvents(deps.prisma, {
    leaseMs: deps.leaseMs,
    limit: options.limit ?? 100,
    eventId: options.eventId,
  });
  for (const event of events) counts[await processClaimed(deps, event)] += 1;
  return counts;
}

async function processClaimed(deps: WebhookDeps, event: InboxEvent): Promise<keyof ProcessCounts> {
  const attributes = { "stripe.event.id": event.id, "stripe.event.type": event.type };
  return inSpan("stripe.webhook.process", attributes, async (span) => {
    const stage = await processInSpan(deps, event);
    span.setAttribute("stripe.webhook.stage", stage);
    return stage;
  });
}

async function processInSpan(deps: WebhookDeps, event: InboxEvent): Promise<keyof ProcessCounts> {
  const fields = {
    eventId: event.id,
    type: event.type,
    paymentIntentId: event.paymentIntentId,
    attempts: event.attempts,
  };
  try {
    const verdict = await decide(deps, event);
    if ("done" in verdict) {
      await markProcessed(deps.prisma, event.id, verdict.done);
      deps.log?.("webhook", { stage: "processed", outcome: verdict.done, ...fields });
      return "processed";
    }
    if (await expire(deps, event, verdict.later)) return "expired";
    const delayMs = backoffMs(event.attempts);
    await retryLater(deps.prisma, event.id, delayMs, verdict.later);
    deps.log?.("webhook", { stage: "deferred", reason: verdict.later, retryInMs: delayMs, ...fields });
    return "deferred";
  } catch (err) {
    // Stripe or the database failed mid-way. Every step is idempotent, so the
    // next attempt redoes it; if even this write fails, the lease runs out.
    const reason = err instanceof Error ? err.message : String(err);
    if (await expire(deps, event, reason).catch(() => false)) return "expired";
    await retryLater(deps.prisma, event.id, backoffMs(event.attempts), reason).catch(() => undefined);
    deps.log?.("webhook", { stage: "failed", reason, ...fields });
    return "failed";
  }
}

/** Past Stripe's redelivery horizon an event still not done is given up: marked, logged and counted for a person. */
async function expire(deps: WebhookDeps, event: InboxEvent, reason: string): Promise<boolean> {
  if (event.ageMs <= MAX_EVENT_AGE_MS) return false;
  await markProcessed(deps.prisma, event.id, "expired");
  deps.log?.("webhook", {
    stage: "expired",
    reason,
    eventId: event.id,
    type: event.type,
    paymentIntentId: event.paymentIntentId,
    attempts: event.attempts,
  });
  return true;
}

const REFUND_EVENTS = new Set([
  "charge.refunded",
  "charge.refund.updated",
  "refund.created",
  "refund.updated",
  "refund.failed",
]);

/** Every event type the processing acts on: what the events catch-up reads back from Stripe. */
export const HANDLED_EVENT_TYPES = [
  "payment_intent.created",
  "payment_intent.requires_action",
  "payment_intent.processing",
  "payment_intent.succeeded",
  "payment_intent.payment_failed",
  "payment_intent.canceled",
  ...REFUND_EVENTS,
];

async function decide(deps: WebhookDeps, event: InboxEvent): Promise<Verdict> {
  if (event.type.startsWith("payment_intent.") && event.paymentIntentId)
    return onPaymentIntent(deps, event.paymentIntentId);
  if (REFUND_EVENTS.has(event.type) && event.paymentIntentId) return onRefund(deps, event.paymentIntentId);
  return { done: "ignored" };
}

/**
 * What one of the shop's intents now is, written where it belongs: Stripe's
 * news of it, and the operator's cancel telling the shop what it did, take
 * this one path (a failed payment's, which reopens the checkout).
 */
export async function onPaymentIntent(deps: WebhookDeps, paymentIntentId: string): Promise<Verdict> {
  const intent = await retrieve(deps, paymentIntentId);
  // Signed with our secret, yet the intent is not in this account (another environment's event): nothing to do.
  if (!intent) return { done: "ignored_unknown_intent" };
  const owner = judgeIntent(deps.identity, intent);
  const attempt = await findPaymentAttempt(deps.prisma, intent);
  // The intent recorded on one of this shop's orders is its own by that record; any other must prove it.
  if (attempt?.order.paymentIntentId !== intent.id && owner.kind !== "ours")
    return { done: leaveAlone(deps, intent, owner) };
  if (!attempt) {
    // Its order is written before the intent is created: the shop lost it. A
    // charge is restored as its order (or refunded); nothing charged needs no
    // order, since the shopper's retry writes it again.
    if (intent.status === "succeeded") {
      const verdict = await accountForIntent(deps, intent);
      return verdict === "not_yet" ? { later: `no order ${intent.metadata.orderId} yet` } : { done: verdict };
    }
    if (intent.status === "canceled" || intent.last_payment_error) return { done: "lost_order_unpaid" };
    return cancelLostOpenIntent(deps, intent);
  }
  const { order, record } = attempt;
  if (order.paymentIntentId !== null && order.paymentIntentId !== intent.id) {
    const undone = await undoStrayIntent(deps, { id: order.id, paymentIntentId: order.paymentIntentId }, intent);
    return typeof undone === "string" ? { done: undone } : undone;
  }
  // Decided days after its key was done with (and likely removed): the order carries it. A debit failed
  // later whose record still holds its checkout (the process died between the two writes) is settled
  // again, so the checkout lets go of it.
  if (order.status === "processing" || (order.status === "failed" && record?.status === "completed"))
    return settleProcessing(deps, order, intent);
  const status =
    record?.status ?? (order.status === "paid" ? "completed" : order.status === "failed" ? "failed" : null);
  switch (status) {
    case "completed":
      return { done: "already_paid" };
    case "failed":
      if (intent.status !== "succeeded") return { done: "already_failed" };
      // Asked again even when Stripe already reported a refund: if it was this
      // one, Stripe replays it and the order learns it was a late success.
      if (order.refundReason === "late_success") return { done: "already_refunded" };
      return { done: await refundLateSuccess(deps, order, intent) };
    case "in_progress":
      return driveAttempt(deps, record!, intent);
    default:
      // A pending order whose record is gone cannot happen (records of
      // unfinished attempts never expire); leave it for a person to look at.
      return { done: "orphan_order" };
  }
}

/** A processing payment as Stripe has it now: paid, failed (once each), or still on its way. */
async function settleProcessing(
  deps: WebhookDeps,
  order: { id: string },
  intent: Stripe.PaymentIntent,
): Promise<Verdict> {
  if (intent.status === "succeeded") {
    const paid = await paymentSucceededLater(deps.prisma, order.id, intent.id, intent.amount_received || intent.amount);
    if (paid) deps.log?.("payment_settled", { orderId: order.id, paymentIntentId: intent.id, outcome: "paid" });
    return { done: paid ? "paid_later" : "already_paid" };
  }
  if (intent.status === "requires_payment_method" || intent.status === "canceled") {
    const code = intent.last_payment_error?.code ?? intent.status;
    const failed = await paymentFailedLater(deps, order.id, intent.id, code);
    if (failed) deps.log?.("payment_settled", { orderId: order.id, paymentIntentId: intent.id, outcome: "failed" });
    return { done: failed ? "failed_later" : "already_failed" };
  }
  return { done: "still_processing" };
}

/**
 * An open intent (waiting for 3-D Secure, or never confirmed) whose attempt
 * the shop lost: no record is left for the reconciler to cancel it on time,
 * so the event does, once the authentication could have timed out — under
 * the attempt's own cancel key, as the reconciler would. Should the shopper
 * authenticate first, it succeeds and its order is restored; should it
 * succeed meanwhile, Stripe refuses the cancellation and the next try
 * restores it.
 */
async function cancelLostOpenIntent(deps: WebhookDeps, intent: Stripe.PaymentIntent): Promise<Verdict> {
  const orderId = intent.metadata.orderId!;
  if (intent.status === "processing" || Date.now() - intent.created * 1000 < deps.actionTimeoutMs)
    return { later: `no order ${orderId}, intent ${intent.status}` };
  // The parameters the reconciler sends under this key (settle-for-good.ts), so either call replays the other.
  await deps.stripe.paymentIntents.cancel(
    intent.id,
    { cancellation_reason: "abandoned" },
    { idempotencyKey: paymentKeys(orderId.toLowerCase()).cancel },
  );
  deps.log?.("lost_order_canceled", { paymentIntentId: intent.id, attemptId: orderId, status: intent.status });
  return { done: "lost_order_canceled" };
}

/**
 * An attempt nobody has finished: take it over with the same fenced
 * compare-and-set as a retry or the reconciler and drive it to its outcome
 * with the same downstream keys — the one call into the checkout's payment
 * path. A live owner (lock younger than the TTL) keeps it.
 */
async function driveAttempt(
  deps: WebhookDeps,
  record: NonNullable<PaymentAttempt["record"]>,
  intent: Stripe.PaymentIntent,
): Promise<Verdict> {
  const resumed = await resumeAttempt<Verdict>(
    deps,
    { recordId: record.id, lockToken: record.lockToken },
    { customerId: record.subjectId, key: record.key },
    async (found, owner) => {
      const paymentMethod = found?.paymentMethod;
      if (!found || !paymentMethod) {
        await deps.idempotency.release(owner, "backoff");
        return { leave: { later: "attempt has no order with a payment method" } };
      }
      // An owner that died before recording the intent's id: this is the attempt's
      // intent (its metadata names the attempt), so the attempt resumes with it.
      // Not `final` unless past the deadline: a webhook never cancels an intent
      // the shopper may still complete (3-D Secure); the reconciler does, on time.
      return {
        settle: { ...found, paymentMethod, paymentIntentId: found.paymentIntentId ?? intent.id },
        options: { onUnknown: "backoff" },
      };
    },
  );
  if (resumed.kind === "busy") return { later: "attempt owned by a live request" };
  if (resumed.kind === "left") return resumed.value;
  const { outcome } = resumed.settled;
  switch (outcome.kind) {
    case "succeeded":
      return { done: "paid" };
    case "requires_action":
    case "processing":
      return { done: "settled_202" };
    case "declined":
    case "failed":
      return { done: "settled_402" };
    case "unknown":
      return { later: "payment outcome unknown at the provider" };
    case "fenced":
      return { later: "attempt owned by a live request" };
  }
}

/**
 * `charge.refunded`, `refund.*`, `charge.refund.updated`: a refund of one of
 * the shop's payments, recorded on its order once. As for intents, the event
 * only says where to look: the refunds are listed from Stripe (newest first).
 * A refund that went through (or is still pending) is recorded; when the only
 * ones left failed — the card network refused the money after Stripe accepted
 * the refund — the order records that it did not go back, and an operator is
 * told (docs/operations.md, "Refunds that fail"). It is not retried: a card
 * that refused a refund refuses the next one too. The app's own late-success
 * refunds are recorded by refundLateSuccess, which corrects the reason if
 * Stripe's news came first.
 */
export async function onRefund(deps: WebhookDeps, paymentIntentId: string): Promise<Verdict> {
  const order = await deps.prisma.order.findUnique({
    where: { paymentIntentId },
    select: { id: true, amountCents: true, refundId: true, refundReason: true },
  });
  if (!order) {
    const intent = await retrieve(deps, paymentIntentId);
    if (!intent) return { done: "ignored" };
    const owner = judgeIntent(deps.identity, intent);
    if (owner.kind !== "ours") return { done: leaveAlone(deps, intent, owner) };
    // The refund of a stray intent (see stray-intent.ts): its order was paid by another, and keeps that payment.
    const attempt = await findPaymentAttempt(deps.prisma, intent);
    if (attempt?.order.paymentIntentId) return { done: "stray_refund" };
    return { later: `no order with ${intent.id} yet` };
  }
  const refunds: Stripe.Refund[] = [];
  for await (const refund of deps.stripe.refunds.list({ payment_intent: paymentIntentId, limit: 100 }))
    refunds.push(refund);
  await recordInLedger(deps, order, refunds);
  const refunded = refundedAmount(refunds);
  const refund = refunds.find((r) => r.status !== "failed" && r.status !== "canceled");
  if (refund && !refundedInFull(refunded, order.amountCents)) {
    // Part of the payment given back (support refunded $5 of $120): the order stays paid, partially refunded.
    const recorded = await recordPartialRefund(deps.prisma, order, refunded);
    return { done: recorded ? "partial_refund_recorded" : "already_refunded" };
  }
  if (refund) {
    const recorded = await recordRefund(deps.prisma, order, {
      id: refund.id,
      reason: "provider",
      refundedCents: refunded,
    });
    return { done: recorded ? "refund_recorded" : "already_refunded" };
  }
  const failed = refunds.find((r) => r.status === "failed");
  if (!failed) return { done: "no_refund" };
  const failureReason = failed.failure_reason ?? "unknown";
  if (!(await recordRefundFailure(deps.prisma, order, { id: failed.id, failureReason }))) {
    return { done: "refund_failure_known" };
  }
  deps.log?.("refund_failed", {
    alarm: true,
    orderId: order.id,
    paymentIntentId,
    refundId: failed.id,
    amountCents: failed.amount,
    failureReason,
    message: `The refund ${failed.id} of order ${order.id} failed (${failureReason}): the money is back on the Stripe balance, not with the shopper. Give it back another way, then record it (docs/operations.md).`,
  });
  return { done: "refund_failed" };
}

/**
 * Every refund Stripe lists joins the order's refunds ledger (lib/refunds):
 * the operator's get their state, the shop's own and the Dashboard's get
 * rows, and an operator's refund that failed is money owed, said once.
 */
async function recordInLedger(
  deps: WebhookDeps,
  order: { id: string; refundId: string | null; refundReason: string | null },
  refunds: readonly Stripe.Refund[],
): Promise<void> {
  const failed = await syncLedger(
    poolTransaction(poolOf(deps.prisma)),
    order.id,
    refunds.map((refund) => ({
      id: refund.id,
      amount: refund.amount,
      status: refund.status,
      failureReason: refund.failure_reason ?? null,
      ledgerId: isUuid(refund.metadata?.refund_ledger_id ?? "") ? refund.metadata!.refund_ledger_id! : null,
      source: order.refundReason === "late_success" && order.refundId === refund.id ? "late_success" : "provider",
    })),
  );
  for (const refund of failed.filter((r) => r.source === "operator"))
    deps.log?.("refund_failed", {
      alarm: true,
      orderId: order.id,
      refundId: refund.stripeRefundId,
      amountCents: refund.amountCents,
      failureReason: refund.failureReason ?? "unknown",
      message: `The operator's refund ${refund.stripeRefundId} of order ${order.id} failed (${refund.failureReason ?? "unknown"}): ${refund.amountCents} is owed to the shopper and counts as remaining again (docs/operations.md).`,
    });
}

/** The intent as Stripe has it now; null if Stripe does not know it. Anything else failing is thrown (and retried). */
async function retrieve(deps: WebhookDeps, paymentIntentId: string): Promise<Stripe.PaymentIntent | null> {
  try {
    return await deps.stripe.paymentIntents.retrieve(paymentIntentId);
  } catch (err) {
    if (typeof err === "object" && err !== null && (err as { code?: unknown }).code === "resource_missing") return null;
    throw err;
  }
}
