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
 * corrects the reason to its own. Returns true the first time the refund is
 * recorded with `reason` (for counting it once).
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
      select id, refund_id, refund_reason from orders where id = ${order.id}::uuid for update
    )
    update orders o
       set refunded_at = coalesce(o.refunded_at, now()),
           refund_id = coalesce(${refund.id}, previous.refund_id),
           refund_reason = ${refund.reason},
           updated_at = now()
      from previous
     where o.id = previous.id
       and (previous.refund_reason is null
            or (${refund.reason} = 'late_success' and previous.refund_reason = 'provider'
                and (previous.refund_id is null or previous.refund_id = ${refund.id})))
    returning o.id`;
  return rows.length === 1;
}
