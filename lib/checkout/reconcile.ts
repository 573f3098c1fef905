import { knownAttempt } from "./attempt";
import type { AbandonedRecord, Ownership } from "@checkout/idempotency";
import type { PaymentOutcome } from "../payments/outcome";
import { recordExpired, resumeAttempt, type CheckoutDeps, type ResumePlan } from "./checkout";
import { findAttemptIntent } from "../payments/attempt-intent";
import { isAttemptIntentOf, judgeIntent } from "./intent-ownership";
import { findAttemptOrder, type PendingOrder } from "./orders";
import { CHECKOUT_ENDPOINT } from "./request";
import { restoreOrder } from "./restore-order";
import { inSpan } from "../tracing/spans";

/**
 * Finishes checkout attempts nobody is finishing (docs/contract.md,
 * "Convergence"): an owner that died mid-payment, a transient failure whose
 * shopper never retried, an authentication nobody completed. Each is taken
 * over with the same fenced compare-and-set a retry uses and driven on
 * exactly as a retry would drive it — the same downstream idempotency keys,
 * so Stripe replays a charge that happened and performs one that did not.
 * Past its deadline an attempt is settled for good. Several reconcilers (one
 * per app instance) can run at once: each record is won by one of them.
 */
export type ReconcileOutcome = "paid" | "declined" | "failed" | "waiting" | "unknown" | "abandoned" | "skipped";

export async function reconcileAbandoned(
  deps: CheckoutDeps,
  options: { limit?: number } = {},
): Promise<Record<ReconcileOutcome, number>> {
  const counts: Record<ReconcileOutcome, number> = {
    paid: 0,
    declined: 0,
    failed: 0,
    waiting: 0,
    unknown: 0,
    abandoned: 0,
    skipped: 0,
  };
  const records = await deps.idempotency.findAbandoned(CHECKOUT_ENDPOINT, options.limit ?? 100);
  for (const record of records) {
    const { outcome, code } = await reconcileOne(deps, record);
    counts[outcome] += 1;
    deps.log?.("reconcile", {
      outcome,
      code,
      recordId: record.recordId,
      key: record.key,
      customerId: record.subjectId,
      parked: record.parked,
    });
  }
  return counts;
}

async function reconcileOne(
  deps: CheckoutDeps,
  record: AbandonedRecord,
): Promise<{ outcome: ReconcileOutcome; code?: string }> {
  return inSpan("checkout.reconcile", {}, async (span) => {
    const counted = await reconcileResumed(deps, record);
    span.setAttribute("checkout.reconcile.outcome", counted.outcome);
    return counted;
  });
}

async function reconcileResumed(deps: CheckoutDeps, record: AbandonedRecord): Promise<Counted> {
  const resumed = await resumeAttempt<Counted>(
    deps,
    record,
    { customerId: record.subjectId, key: record.key },
    (order, owner) => planReconcile(deps, record, order, owner),
  );
  if (resumed.kind === "busy") return { outcome: "skipped" }; // a retry or another reconciler got there first
  return resumed.kind === "left" ? resumed.value : countAs(resumed.settled.outcome);
}

type Counted = { outcome: ReconcileOutcome; code?: string };

async function planReconcile(
  deps: CheckoutDeps,
  record: AbandonedRecord,
  found: PendingOrder | null,
  owner: Ownership,
): Promise<ResumePlan<Counted>> {
  let order = found;
  if (!order) {
    // Nothing was charged (the charge comes after the order), unless the shop
    // lost the order after its charge. Before the deadline, forget the claim
    // so the shopper's retry starts afresh (its create replays the charge at
    // Stripe). After it the key only replays, so the failure would stand for
    // good: first ask Stripe. A failover that lost the latest commits can lose
    // the order and the outcome of a payment the shopper was told succeeded;
    // its intent then restores the order as paid and the attempt settles from
    // it. With no success there, the failure is recorded, and an intent still
    // open is the lost-order path's (lib/webhooks/lost-order.ts).
    if (!owner.pastDeadline) {
      await deps.idempotency.abandon(owner);
      return { leave: { outcome: "abandoned" } };
    }
    order = (await restoredFromProvider(deps, record)) ? await findAttemptOrder(deps.prisma, record.recordId) : null;
    if (!order) {
      await recordExpired(deps, owner);
      return { leave: { outcome: "failed", code: "attempt_expired" } };
    }
  }
  if (!order.paymentMethod && !owner.pastDeadline) {
    // Written before orders recorded their payment method: leave it to a retry until the deadline.
    await deps.idempotency.release(owner, "backoff");
    return { leave: { outcome: "skipped" } };
  }
  // A parked attempt is looked at as a return would: an intent the shopper authenticated is confirmed, one
  // still waiting waits again; once its action timeout has passed it is settled for good.
  const timedOut = record.parked && record.ageMs >= deps.actionTimeoutMs;
  return {
    settle: { ...order, paymentMethod: order.paymentMethod ?? "" },
    options: { final: owner.pastDeadline || timedOut, onUnknown: "backoff" },
  };
}

/**
 * When the reconciler first looks at an attempt parked for the shopper's bank
 * (then again each time after as long as it has waited): a minute, or a
 * sixteenth of a shorter action timeout. A shopper who authenticated and never
 * came back is paid within minutes, as Stripe would confirm at the bank
 * without manual confirmation, for about six reads an abandoned challenge.
 */
export function parkedLookAfterMs(actionTimeoutMs: number): number {
  return Math.min(60_000, Math.floor(actionTimeoutMs / 16));
}

/** The attempt's order restored from its succeeded intent at Stripe, if it has one this shop signed. */
async function restoredFromProvider(deps: CheckoutDeps, record: AbandonedRecord): Promise<boolean> {
  const claimed = await deps.prisma.idempotencyKey.findUnique({
    where: { id: record.recordId },
    select: { createdAt: true },
  });
  if (!claimed) return false;
  const { id } = knownAttempt(record.subjectId, record.key);
  const intent = await findAttemptIntent(deps.stripe, id, claimed.createdAt, isAttemptIntentOf(deps.identity, id));
  if (intent?.status !== "succeeded") return false;
  const owner = judgeIntent(deps.identity, intent);
  if (owner.kind !== "ours") return false;
  const restored = await restoreOrder(deps.prisma, intent, owner);
  if (restored.kind === "restored")
    deps.log?.("order_restored", { outcome: restored.status, orderId: restored.orderId, paymentIntentId: intent.id });
  return restored.kind !== "unrestorable";
}

function countAs(outcome: PaymentOutcome): { outcome: ReconcileOutcome; code?: string } {
  switch (outcome.kind) {
    case "succeeded":
      return { outcome: "paid" };
    case "requires_action":
    case "processing":
      return { outcome: "waiting" };
    case "declined":
      return { outcome: "declined", code: outcome.declineCode };
    case "failed":
      return { outcome: "failed", code: outcome.code };
    case "unknown":
      return { outcome: "unknown" };
    case "fenced":
      return { outcome: "skipped" }; // another owner took it over meanwhile
  }
}
