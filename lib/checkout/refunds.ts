import type { PrismaClient } from "../generated/prisma/client";

/**
 * Refunds as the order records them. `late_success`: the app refunded a
 * payment that succeeded after its attempt was recorded as failed.
 * `provider`: Stripe reported a refund the app did not (yet) know as its own,
 * e.g. one made in the Dashboard.
 */
export type RefundReason = "late_success" | "provider";

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
  refund: { id: string | null; reason: RefundReason },
): Promise<boolean> {
  // Raw SQL: the previous values decide, in the same statement that writes,
  // whether this is news, without a transaction.
  const rows = await prisma.$queryRaw<Array<{ id: string }>>`
    with previous as (
      select id, refund_id, refund_reason, refund_failed_at from orders where id = ${order.id}::uuid for update
    )
    update orders o
       set refunded_at = coalesce(o.refunded_at, now()),
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
