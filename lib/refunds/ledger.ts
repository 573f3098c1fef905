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

/**
 * What the order has given back, for "what remains": the ledger's hold once
 * the order has ledger rows (a refund that failed or was cancelled then gives
 * its amount back). An order without rows (refunded before the ledger
 * existed, Stripe's list not read into it yet) counts at least
 * `refunded_cents`, the sum of Stripe's refunds the shop last heard of.
 * `alias` names the orders row.
 */
export const givenBack = (alias: string) =>
  raw(
    `case when exists (select 1 from refunds where refunds.order_id = ${alias}.id) then ${alias}.refund_held_cents ` +
      `else greatest(${alias}.refund_held_cents, ${alias}.refunded_cents) end`,
  );

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
 *
 * The row's id is `rowId`, derived from the attempt (deriveId), not drawn:
 * Stripe's refund carries it in its metadata, so a claim made again after
 * the database lost the first (a failover) sends Stripe the same request
 * under the same key and gets the first refund back, and news of that
 * refund recorded meanwhile lands on the same id (syncLedger), which the
 * attempt then adopts (`adoptAttemptRefund`) instead of reserving again.
 */
export function refundGate(orderId: string, amountCents: number | null, reason: string | null, rowId: string): Gate {
  return {
    before: sql`
      refund_order as (
        select o.id, o.amount_cents, ${givenBack("o")} as given_back, o.status::text as status from orders o
         where o.id = ${orderId}::uuid and not exists (select 1 from existing)
           for update
      ),
      refund_ask as (
        select id, coalesce(${amountCents}::int, amount_cents - given_back) as amount,
               status = 'paid'
               and coalesce(${amountCents}::int, amount_cents - given_back) between 1 and amount_cents - given_back
               and not exists (select 1 from refunds where id = ${rowId}::uuid)
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
        insert into refunds (id, order_id, idempotency_key_id, amount_cents, status, source, reason)
        select ${rowId}::uuid, a.id, i.id, a.amount, 'pending', 'operator', ${reason}
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

/** Runs `work` in one transaction (poolTransaction, or a test's). */
export type Transaction = <T>(work: (db: Database) => Promise<T>) => Promise<T>;

/**
 * What the order's pending and succeeded refunds hold, from the rows as this
 * statement sees them with `changed` (a CTE of the rows it rewrites: id,
 * amount_cents, status) taking their new state. Only sound in a statement
 * that runs after the order row was locked in the same transaction: its
 * snapshot then holds every row another writer committed under that lock.
 */
const HELD_FROM_ROWS = raw(`least(o.amount_cents, coalesce((
    select sum(x.amount_cents) from refunds x
     where x.order_id = o.id and x.status in ('pending', 'succeeded')
       and x.id not in (select id from changed)), 0)
  + coalesce((select sum(c.amount_cents) from changed c where c.status in ('pending', 'succeeded')), 0))`);

/** A ledger row by its id; null if there is none. */
export async function ledgerRow(db: Database, id: string): Promise<LedgerRefund | null> {
  const rows = await run<LedgerRefund>(db, sql`select ${COLUMNS} from refunds where id = ${id}::uuid`);
  return rows[0] ?? null;
}

/**
 * The attempt's refund as Stripe's news recorded it when the claim that made
 * it was lost (its row id is the attempt's), tied to the attempt's current
 * claim: fenced, and only a row no claim holds. Null when there is none.
 */
export async function adoptAttemptRefund(db: Database, owner: Ownership, rowId: string): Promise<LedgerRefund | null> {
  const rows = await run<LedgerRefund>(
    db,
    sql`
    with ${heldBy(owner)}
    update refunds r set idempotency_key_id = owner.id, source = 'operator', updated_at = now()
      from owner
     where r.id = ${rowId}::uuid and r.idempotency_key_id is null
    returning r.id, r.order_id as "orderId", r.stripe_refund_id as "stripeRefundId", r.amount_cents as "amountCents",
              r.status, r.source, r.reason, r.failure_reason as "failureReason", r.created_at as "createdAt"`,
  );
  return rows[0] ?? null;
}

/**
 * Writes what Stripe answered to the attempt's refund, fenced: only while
 * `owner` holds the claim, and only over the row's own `pending` state
 * (Stripe's news may have come first and is final). The order row is locked
 * first, then one statement settles the row and sets the hold from the
 * refund rows, so a refund that did not happen (failed at once, or refused
 * by Stripe: `canceled`) stops holding its amount and no concurrent writer's
 * change is lost. False, having written nothing, once fenced out or settled.
 */
export async function settleAttemptRefund(
  transaction: Transaction,
  owner: Ownership,
  refundId: string,
  outcome: { stripeRefundId: string | null; status: RefundStatus; failureReason?: string | null },
): Promise<boolean> {
  return transaction(async (db) => {
    await run(
      db,
      sql`select o.id from orders o join refunds r on r.order_id = o.id where r.id = ${refundId}::uuid for update of o`,
    );
    const rows = await run<{ id: string }>(
      db,
      sql`
      with ${heldBy(owner)},
      changed as (
        update refunds r set stripe_refund_id = coalesce(${outcome.stripeRefundId}, r.stripe_refund_id),
               status = ${outcome.status}, failure_reason = ${outcome.failureReason ?? null}, updated_at = now()
          from owner
         where r.id = ${refundId}::uuid and r.status = 'pending'
        returning r.id, r.order_id, r.amount_cents, r.status
      ),
      held as (
        update orders o set refund_held_cents = ${HELD_FROM_ROWS}, updated_at = now()
          from (select distinct order_id from changed) c
         where o.id = c.order_id
        returning o.id
      )
      select id from changed`,
    );
    return rows.length === 1;
  });
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
  transaction: Transaction,
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
            // Stripe's amount is the truth: a claim made again after a failover may have reserved another.
            sql`update refunds set stripe_refund_id = ${refund.id}, status = ${status}, amount_cents = ${refund.amount},
                       failure_reason = coalesce(${refund.failureReason}, failure_reason), updated_at = now()
                 where id = ${known.id}::uuid
                   and (status <> ${status} or stripe_refund_id is null or amount_cents <> ${refund.amount})
                   -- failed and canceled are final once Stripe said so: an older reading never undoes them;
                   -- a row the shop closed itself (Stripe refused a repeat) takes Stripe's news of its refund
                   and (status not in ('failed', 'canceled') or stripe_refund_id is null)
                returning ${COLUMNS}`,
          )
        : await run<LedgerRefund>(
            db,
            // An operator's refund whose claim the database lost keeps its ledger id: the attempt adopts it.
            sql`insert into refunds (id, order_id, stripe_refund_id, amount_cents, status, source, failure_reason)
                values (coalesce(${refund.ledgerId}::uuid, gen_random_uuid()), ${orderId}::uuid, ${refund.id}, ${refund.amount},
                        ${status}, ${refund.ledgerId === null ? refund.source : "operator"}, ${refund.failureReason})
                on conflict do nothing
                returning ${COLUMNS}`,
          );
      if (status === "failed" && rows[0] && known?.status !== "failed") newlyFailed.push(rows[0]);
    }
    // Stripe never lets refunds exceed the charge; the cap keeps a reading mid-change within the constraint.
    await run(
      db,
      sql`with changed as (select id, amount_cents, status from refunds where false)
          update orders o set refund_held_cents = ${HELD_FROM_ROWS}, updated_at = now()
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
  /** When Stripe cancelled the payment at an operator's request (lib/cancels), and the reason chosen. */
  canceledAt: Date | null;
  cancelReason: string | null;
}

/**
 * The order as the refund routes and /ops show it; null if there is none.
 * One statement, so the hold and the rows are read from one snapshot: two
 * reads could show a refund failed beside the hold it held a moment before.
 */
export async function orderRefunds(db: Database, orderId: string): Promise<OrderRefunds | null> {
  const [order] = await run<{
    id: string;
    amountCents: number;
    currency: string;
    status: string;
    paymentIntentId: string | null;
    held: number;
    canceledAt: Date | null;
    cancelReason: string | null;
    refunds: (Omit<LedgerRefund, "createdAt"> & { createdAt: string })[];
  }>(
    db,
    sql`select o.id, o.amount_cents as "amountCents", o.currency, o.status::text as status,
               o.payment_intent_id as "paymentIntentId", ${givenBack("o")} as held,
               o.canceled_at as "canceledAt", o.cancel_reason as "cancelReason",
               coalesce((select json_agg(json_build_object(
                   'id', r.id, 'orderId', r.order_id, 'stripeRefundId', r.stripe_refund_id,
                   'amountCents', r.amount_cents, 'status', r.status, 'source', r.source, 'reason', r.reason,
                   'failureReason', r.failure_reason, 'createdAt', r.created_at) order by r.created_at, r.id)
                  from refunds r where r.order_id = o.id), '[]'::json) as refunds
          from orders o where o.id = ${orderId}::uuid`,
  );
  if (!order) return null;
  const refunds = order.refunds.map((r) => ({ ...r, createdAt: new Date(r.createdAt) }));
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
    canceledAt: order.canceledAt,
    cancelReason: order.cancelReason,
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
