import {
  heldBy,
  pgDatabase,
  raw,
  run,
  sql,
  type Database,
  type Gate,
  type Ownership,
  type PgQueryable,
} from "@checkout/idempotency";

/**
 * The refunds ledger: one row per refund of an order's payment, whoever
 * made it. `orders.refund_held_cents` is what its pending and succeeded rows
 * hold back, and every statement that changes a row's amount or state
 * changes it under the order row's lock, so "what remains" is one column
 * read under that lock. A check constraint keeps it within the charge.
 */
export type RefundStatus = "pending" | "succeeded" | "failed" | "canceled";
export type RefundSource = "operator" | "late_success" | "provider";

/** A reason the operator typed: kept short, as Stripe's metadata values must be (500 characters). */
export const MAX_REASON_LENGTH = 500;

/**
 * The operator's refund, reserved in the claim's own statement: the order
 * row is locked (`for update` returns its newest version once a concurrent
 * claim commits, so two claims racing for the last $10 are serialized on
 * the row), the amount (all that remains when none is given) is held on it
 * only if it fits, and the ledger row is tied to the fresh claim. A claim
 * whose amount does not fit is still admitted, with no ledger row: its
 * answer (`422 refund_exceeds_remaining`) is stored and replayed like any
 * other, and nothing is sent to Stripe. A known key is never re-reserved.
 */
export function refundGate(orderId: string, amountCents: number | null, reason: string | null): Gate {
  return {
    before: sql`
      refund_order as (
        select id, amount_cents, refund_held_cents, status::text as status from orders
         where id = ${orderId}::uuid and not exists (select 1 from existing)
           for update
      ),
      refund_ask as (
        select id, coalesce(${amountCents}::int, amount_cents - refund_held_cents) as amount,
               status = 'paid'
               and coalesce(${amountCents}::int, amount_cents - refund_held_cents) between 1 and amount_cents - refund_held_cents
               as fits
          from refund_order
      )`,
    admits: raw("true"),
    after: sql`
      refund_reserved as (
        update orders o set refund_held_cents = o.refund_held_cents + a.amount, updated_at = now()
          from refund_ask a
         where o.id = a.id and a.fits and exists (select 1 from inserted)
        returning o.id
      ),
      refund_row as (
        insert into refunds (order_id, idempotency_key_id, amount_cents, status, source, reason)
        select a.id, i.id, a.amount, 'pending', 'operator', ${reason}
          from refund_ask a, inserted i, refund_reserved r
        returning id
      )`,
    refusal: raw("select 'never'::text, 0 where false"),
  };
}

export interface LedgerRefund {
  id: string;
  orderId: string;
  stripeRefundId: string | null;
  amountCents: number;
  status: RefundStatus;
  source: RefundSource;
  reason: string | null;
  failureReason: string | null;
  createdAt: Date;
}

const COLUMNS = raw(`id, order_id as "orderId", stripe_refund_id as "stripeRefundId", amount_cents as "amountCents",
  status, source, reason, failure_reason as "failureReason", created_at as "createdAt"`);

/** The refund the attempt reserved in its claim; null when its amount did not fit. */
export async function attemptRefund(db: Database, recordId: string): Promise<LedgerRefund | null> {
  const rows = await run<LedgerRefund>(
    db,
    sql`select ${COLUMNS} from refunds where idempotency_key_id = ${recordId}::uuid`,
  );
  return rows[0] ?? null;
}

/**
 * Writes what Stripe answered to the attempt's refund, fenced: only while
 * `owner` holds the claim. A refund that did not happen (failed at once, or
 * refused by Stripe: `canceled`) gives its amount back to what remains.
 * False, having written nothing, once fenced out.
 */
export async function settleAttemptRefund(
  db: Database,
  owner: Ownership,
  refundId: string,
  outcome: { stripeRefundId: string | null; status: RefundStatus; failureReason?: string | null },
): Promise<boolean> {
  const rows = await run<{ id: string }>(
    db,
    sql`
    with ${heldBy(owner)},
    target as (
      select r.id, r.order_id, r.amount_cents, r.status from refunds r, owner
       where r.id = ${refundId}::uuid and r.status = 'pending' -- Stripe's news may have come first
    ),
    locked as (select o.id from orders o, target t where o.id = t.order_id for update of o),
    changed as (
      update refunds r set stripe_refund_id = coalesce(${outcome.stripeRefundId}, r.stripe_refund_id),
             status = ${outcome.status}, failure_reason = ${outcome.failureReason ?? null}, updated_at = now()
        from target t, locked l
       where r.id = t.id
      returning r.id, t.status as before, t.amount_cents, t.order_id
    ),
    released as (
      update orders o set refund_held_cents = o.refund_held_cents - c.amount_cents, updated_at = now()
        from changed c
       where o.id = c.order_id and c.before in ('pending', 'succeeded')
         and ${outcome.status} in ('failed', 'canceled')
      returning o.id
    )
    select id from changed`,
  );
  return rows.length === 1;
}

/** What Stripe lists for a payment's refunds, as the ledger reads it. */
export interface StripeRefundNews {
  id: string;
  amount: number;
  status: string | null;
  failureReason: string | null;
  /** The ledger row an operator's refund carries in its metadata. */
  ledgerId: string | null;
  /** late_success for the shop's own late-success refunds; provider otherwise. */
  source: RefundSource;
}

function ledgerStatus(status: string | null): RefundStatus {
  if (status === "succeeded") return "succeeded";
  if (status === "failed") return "failed";
  if (status === "canceled") return "canceled";
  return "pending"; // pending, requires_action: the money may still go
}

/**
 * Brings the ledger in line with Stripe's list of the payment's refunds
 * (webhooks, the events catch-up): the operator's rows get their Stripe id
 * and state, refunds the shop did not make (the Dashboard) or recorded only
 * on the order (late successes) get rows of their own, and the amount held
 * follows, all under the order row's lock in one transaction. Returns the
 * refunds that failed with this reading (news for the alarm).
 */
export async function syncLedger(
  transaction: <T>(work: (db: Database) => Promise<T>) => Promise<T>,
  orderId: string,
  refunds: readonly StripeRefundNews[],
): Promise<LedgerRefund[]> {
  return transaction(async (db) => {
    await run(db, sql`select id from orders where id = ${orderId}::uuid for update`);
    const newlyFailed: LedgerRefund[] = [];
    for (const refund of refunds) {
      const status = ledgerStatus(refund.status);
      const [known] = await run<{ id: string; status: RefundStatus }>(
        db,
        sql`select id, status from refunds
             where order_id = ${orderId}::uuid
               and (stripe_refund_id = ${refund.id} or id = ${refund.ledgerId}::uuid)
             order by stripe_refund_id is not distinct from ${refund.id} desc
             limit 1`,
      );
      const rows = known
        ? await run<LedgerRefund>(
            db,
            sql`update refunds set stripe_refund_id = ${refund.id}, status = ${status},
                       failure_reason = coalesce(${refund.failureReason}, failure_reason), updated_at = now()
                 where id = ${known.id}::uuid and (status <> ${status} or stripe_refund_id is null)
                   -- failed and canceled are final at Stripe: an older reading never undoes them
                   and status not in ('failed', 'canceled')
                returning ${COLUMNS}`,
          )
        : await run<LedgerRefund>(
            db,
            sql`insert into refunds (order_id, stripe_refund_id, amount_cents, status, source, failure_reason)
                values (${orderId}::uuid, ${refund.id}, ${refund.amount}, ${status}, ${refund.source}, ${refund.failureReason})
                on conflict (stripe_refund_id) do nothing
                returning ${COLUMNS}`,
          );
      if (status === "failed" && rows[0] && known?.status !== "failed") newlyFailed.push(rows[0]);
    }
    // Stripe never lets refunds exceed the charge; the cap keeps a reading mid-change within the constraint.
    await run(
      db,
      sql`update orders o set refund_held_cents = least(o.amount_cents, coalesce((
            select sum(amount_cents) from refunds r
             where r.order_id = o.id and r.status in ('pending', 'succeeded')), 0)), updated_at = now()
           where o.id = ${orderId}::uuid`,
    );
    return newlyFailed;
  });
}

/** An order's refunds, oldest first, and what is charged, held back and remains. */
export interface OrderRefunds {
  id: string;
  amountCents: number;
  currency: string;
  status: string;
  paymentIntentId: string | null;
  refundedCents: number;
  remainingCents: number;
  /** What failed refunds owe the shopper: the money went back to the shop's balance, not to them. */
  owedCents: number;
  refunds: LedgerRefund[];
}

/** The order as the refund routes and /ops show it; null if there is none. */
export async function orderRefunds(db: Database, orderId: string): Promise<OrderRefunds | null> {
  const [order] = await run<{
    id: string;
    amountCents: number;
    currency: string;
    status: string;
    paymentIntentId: string | null;
    held: number;
  }>(
    db,
    sql`select id, amount_cents as "amountCents", currency, status::text as status,
               payment_intent_id as "paymentIntentId", refund_held_cents as held
          from orders where id = ${orderId}::uuid`,
  );
  if (!order) return null;
  const refunds = await run<LedgerRefund>(
    db,
    sql`select ${COLUMNS} from refunds where order_id = ${orderId}::uuid order by created_at, id`,
  );
  const charged = order.status === "paid" ? order.amountCents : 0;
  return {
    id: order.id,
    amountCents: order.amountCents,
    currency: order.currency,
    status: order.status,
    paymentIntentId: order.paymentIntentId,
    refundedCents: order.held,
    remainingCents: Math.max(0, charged - order.held),
    owedCents: refunds.filter((r) => r.status === "failed").reduce((sum, r) => sum + r.amountCents, 0),
    refunds,
  };
}

/** A pool whose connections run statements one after another on one session (a pg Pool). */
interface TransactionPool {
  connect(): Promise<PgQueryable & { release(): void }>;
}

/** Runs `work` in one transaction on one of the pool's connections. */
export function poolTransaction(pool: TransactionPool) {
  return async <T>(work: (db: Database) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query({ text: "begin", values: [] });
      const result = await work(pgDatabase(client));
      await client.query({ text: "commit", values: [] });
      return result;
    } catch (err) {
      await client.query({ text: "rollback", values: [] }).catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };
}
