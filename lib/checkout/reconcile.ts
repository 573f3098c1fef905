import { settleAttempt, type CheckoutDeps } from "./checkout";
import { findAttemptOrder } from "./orders";
import { CHECKOUT_ENDPOINT } from "./request";

/**
 * Finishes checkout attempts nobody is finishing (docs/contract.md §3, step 6): an
 * owner that died mid-payment, or a transient failure whose shopper never
 * retried. Each is taken over with the same fenced compare-and-set a retry
 * uses and driven on exactly as a retry would drive it — the same downstream
 * idempotency keys, so Stripe replays a charge that happened and performs one
 * that did not. Several reconcilers (one per app instance) can run at once:
 * each record is won by one of them.
 */
export type ReconcileOutcome = "paid" | "declined" | "unknown" | "abandoned" | "skipped";

export async function reconcileAbandoned(
  deps: CheckoutDeps,
  options: { limit?: number } = {},
): Promise<Record<ReconcileOutcome, number>> {
  const counts: Record<ReconcileOutcome, number> = { paid: 0, declined: 0, unknown: 0, abandoned: 0, skipped: 0 };
  const records = await deps.idempotency.findAbandoned(CHECKOUT_ENDPOINT, options.limit ?? 100);
  for (const record of records) {
    const outcome = await reconcileOne(deps, record);
    counts[outcome] += 1;
    deps.log?.("reconcile", { outcome, recordId: record.recordId, key: record.key, customerId: record.subjectId });
  }
  return counts;
}

async function reconcileOne(
  deps: CheckoutDeps,
  record: { recordId: string; subjectId: string; key: string; lockToken: string | null },
): Promise<ReconcileOutcome> {
  const owner = await deps.idempotency.takeOver(record);
  if (!owner) return "skipped"; // a retry or another reconciler got there first
  // Taken over first, then read: an owner that was still creating the order
  // either committed it before the take-over (found here) or can no longer.
  const order = await findAttemptOrder(deps.prisma, record.recordId);
  if (!order) {
    // Nothing was charged (the charge comes after the order): forget the
    // claim, so the shopper's next retry with this key starts afresh.
    await deps.idempotency.abandon(owner);
    return "abandoned";
  }
  if (!order.paymentMethod) {
    // Written before orders recorded their payment method: leave it to a retry.
    await deps.idempotency.release(owner);
    return "skipped";
  }
  const result = await settleAttempt(deps, owner, { ...order, paymentMethod: order.paymentMethod }, {
    customerId: record.subjectId,
    key: record.key,
  });
  if (result.kind === "unavailable") return "unknown";
  if (result.kind !== "response") return "skipped";
  return result.response.statusCode === 201 ? "paid" : "declined";
}
