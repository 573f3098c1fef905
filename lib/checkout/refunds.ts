import type { PrismaClient } from "../generated/prisma/client";

/**
 * Refunds as the order records them. `late_success`: the app refunded a
 * payment that succeeded after its attempt was recorded as failed.
 * `provider`: Stripe reported a refund the app did not (yet) know as its own,
 * e.g. one made in the Dashboard.
 */
export type RefundReason = "late_success" | "provider";

/** Whether refunds adding up to `refundedCents` give back all of `chargedCents`: the one rule for "refunded in full". */
export function refundedInFull(refundedCents: number, chargedCents: number): boolean {
  return chargedCents > 0 && refundedCents >= chargedCents;
}

/** What the given refunds give back: those that succeeded or are still pending (failed and canceled ones give nothing). */
export function refundedAmount(refunds: readonly { amount: number; status: string | null }[]): number {
  return refunds.reduce((sum, r) => (r.status === "failed" || r.status === "canceled" ? sum : sum + r.amount), 0);
}

/**
 * Records what Stripe's refunds of the order's payment add up to now, below
 * the amount charged: the order stays paid, partially refunded. Stripe's list
 * is the truth, so the latest reading is written as it is.
 */
export async function recordPartialRefund(
  prisma: PrismaClient,
  order: { id: string },
  refundedCents: number,
): Promise<boolean> {
  const { count } = await prisma.order.updateMany({
    where: { id: order.id, refundedAt: null, refundedCents: { not: refundedCents } },
    data: { refundedCents },
  });
  return count === 1;
}

/**
 * Records a refund on the order, once: a second delivery of the same news
 * changes nothing. The app's own refund may be reported by Stripe
 * (`charge.refunded`) before the app records it; the app's record then
 * corrects the reason to its own. A refund that failed (recordRefundFailure)
 * is never recorded as refunded again; another refund of the same payment
 * that goes through (an operator's, in the Dashboard) is, and lifts the
 * failure. Returns true the first time the refund is recorded with `reason`
 * (for counting it once).
 */
export async function recordRefund(
  prisma: PrismaClient,
  order: { id: string },
  refund: { id: string | null; reason: RefundReason; refundedCents: number },
): Promise<boolean> {
  // Raw SQL: the previous values decide, in the same statement that writes,
  // whether this is news, without a transaction.
  const rows = await prisma.$queryRaw<Array<{ id: string }>>`
    with previous as (
      select id, refund_id, refund_reason, refund_failed_at from orders where id = ${order.id}::uuid for update
    )
    update orders o
       set refunded_at = coalesce(o.refunded_at, now()),
           refunded_cents = greatest(o.refunded_cents, ${refund.refundedCents}),
           refund_id = coalesce(${refund.id}, previous.refund_id),
           refund_reason = ${refund.reason},
           refund_failed_at = null,
           refund_failure_reason = null,
           updated_at = now()
      from previous
     where o.id = previous.id
       and ((previous.refund_reason is null and previous.refund_failed_at is null)
            or (${refund.reason} = 'late_success' and previous.refund_reason = 'provider'
                and previous.refund_failed_at is null
                and (previous.refund_id is null or previous.refund_id = ${refund.id}))
            or (previous.refund_failed_at is not null and ${refund.id}::text is not null
                and previous.refund_id is distinct from ${refund.id}))
    returning o.id`;
  return rows.length === 1;
}

/**
 * Records that the order's refund failed after Stripe accepted it
 * (`refund.failed`: the card network refused it, and the money went back to
 * the shop's Stripe balance, not to the shopper): the order no longer shows
 * it refunded, and carries the failure for an operator. Only the order's own
 * refund (or the first one Stripe reports, if the order knew none) counts.
 * Returns true the first time, for logging and counting it once.
 */
export async function recordRefundFailure(
  prisma: PrismaClient,
  order: { id: string },
  refund: { id: string; failureReason: string },
): Promise<boolean> {
  // Raw SQL for coalesce: a failure reported before the app recorded the refund at all is still a refund, Stripe's news.
  const rows = await prisma.$queryRaw<Array<{ id: string }>>`
    update orders
       set refunded_at = null,
           refunded_cents = 0,
           refund_failed_at = now(),
           refund_failure_reason = ${refund.failureReason},
           refund_id = ${refund.id},
           refund_reason = coalesce(refund_reason, 'provider'),
           updated_at = now()
     where id = ${order.id}::uuid
       and refund_failed_at is null
       and (refund_id is null or refund_id = ${refund.id})
    returning id`;
  return rows.length === 1;
}
