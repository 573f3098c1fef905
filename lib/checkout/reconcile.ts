import type { AbandonedRecord } from "../idempotency/types";
import type { PaymentOutcome } from "../payments/outcome";
import { recordExpired, settleAttempt, type CheckoutDeps } from "./checkout";
import { findAttemptOrder } from "./orders";
import { CHECKOUT_ENDPOINT } from "./request";

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
  const owner = await deps.idempotency.takeOver(record);
  if (!owner) return { outcome: "skipped" }; // a retry or another reconciler got there first
  // Taken over first, then read: an owner that was still creating the order
  // either committed it before the take-over (found here) or can no longer.
  const order = await findAttemptOrder(deps.prisma, record.recordId);
  if (!order) {
    // Nothing was charged (the charge comes after the order), unless the shop
    // lost the order after its charge: the provider's record then restores it
    // (lib/webhooks/lost-order.ts), refunded if this records a failure. Before
    // the deadline, forget the claim so the shopper's retry starts afresh;
    // after it, the key only replays, so record the failure for good.
    if (!owner.pastDeadline) {
      await deps.idempotency.abandon(owner);
      return { outcome: "abandoned" };
    }
    await recordExpired(deps, owner);
    return { outcome: "failed", code: "attempt_expired" };
  }
  if (!order.paymentMethod && !owner.pastDeadline) {
    // Written before orders recorded their payment method: leave it to a retry until the deadline.
    await deps.idempotency.release(owner, "backoff");
    return { outcome: "skipped" };
  }
  const { outcome } = await settleAttempt(
    deps,
    owner,
    { ...order, paymentMethod: order.paymentMethod ?? "" },
    { customerId: record.subjectId, key: record.key },
    // A parked record is due only once its authentication timed out.
    { final: owner.pastDeadline || record.parked, onUnknown: "backoff" },
  );
  return countAs(outcome);
}

function countAs(outcome: PaymentOutcome): { outcome: ReconcileOutcome; code?: string } {
  switch (outcome.kind) {
    case "succeeded":
      return { outcome: "paid" };
    case "requires_action":
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
