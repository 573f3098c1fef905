import pg from "pg";
import { inject } from "vitest";
import { LOSE_ATTEMPT_SQL } from "@/tools/chaos/rows-lost";

/**
 * Read-only views of the test database, for asserting what the app stored
 * (or did not), plus writes (`expire`, `insertExpired`, `ageAttempt`,
 * `ageEvent`) standing in for time passing.
 * Counts are scoped by customer or key, because other test files write to
 * the same database at the same time.
 */
export interface IdempotencyRow {
  id: string;
  subject_id: string;
  endpoint: string;
  key: string;
  status: "in_progress" | "completed" | "failed";
  lock_token: string | null;
  locked_at: Date | null;
  attempts: number;
  response_status: number | null;
  /** The stored JSON text, byte for byte. */
  response_body: string | null;
  response_headers: Record<string, string> | null;
  /** Milliseconds since the lock was taken, by the database's clock. */
  lock_age_ms: number | null;
  /** Milliseconds since the attempt began (its record was inserted), by the database's clock. */
  age_ms: number;
  /** Milliseconds until the reconciler's next try is due, by the database's clock: at most 0 once due; null when none is set. */
  next_attempt_in_ms: number | null;
}

/** An attempt's times by the database's clock, as `ageAttempt` left them. */
export type AttemptTimes = Pick<IdempotencyRow, "key" | "lock_age_ms" | "age_ms" | "next_attempt_in_ms">;

/** Milliseconds since a row's time, or until it, by the database's clock. */
const msSince = (column: string) => `(extract(epoch from (now() - ${column})) * 1000)::float8`;
const msUntil = (column: string) => `(extract(epoch from (${column} - now())) * 1000)::float8`;

const ATTEMPT_TIMES = `${msSince("locked_at")} as lock_age_ms, ${msSince("created_at")} as age_ms,
              ${msUntil("next_attempt_at")} as next_attempt_in_ms`;

export interface OrderRow {
  id: string;
  customer_id: string;
  idempotency_key_id: string | null;
  status: "pending" | "paid" | "failed";
  amount_cents: number;
  currency: string;
  payment_intent_id: string | null;
  decline_code: string | null;
  refunded_at: Date | null;
  refund_id: string | null;
  refund_reason: string | null;
  refund_failed_at: Date | null;
  refund_failure_reason: string | null;
  receipt_email: string | null;
  card_brand: string | null;
  card_last4: string | null;
}

export interface WebhookEventRow {
  id: string;
  type: string;
  payment_intent_id: string | null;
  processed_at: Date | null;
  outcome: string | null;
  attempts: number;
  last_error: string | null;
  /** Milliseconds until the event is due again (its lease or backoff ends), by the database's clock: at most 0 once due. */
  next_attempt_in_ms: number;
}

const EVENT_DUE_IN = `${msUntil("next_attempt_at")} as next_attempt_in_ms`;

export class TestDb {
  private readonly pool: pg.Pool;

  constructor(databaseUrl: string = inject("databaseUrl")) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // An idle connection closed by the server must not crash the test process;
    // the next query reports the problem where it happens.
    this.pool.on("error", () => undefined);
  }

  /** Rows a request could have written: idempotency records (by customer or by key) and orders (by customer). */
  async stored(customerId: string | null, key: string): Promise<{ keys: number; orders: number }> {
    const keys = await this.pool.query<{ n: string }>(
      `select count(*) as n from idempotency_keys where key::text = lower($2) or ($1::text is not null and subject_id = $1::text)`,
      [customerId, key],
    );
    const orders = customerId
      ? await this.pool.query<{ n: string }>(`select count(*) as n from orders where customer_id = $1::uuid`, [
          customerId,
        ])
      : { rows: [{ n: "0" }] };
    return { keys: Number(keys.rows[0]!.n), orders: Number(orders.rows[0]!.n) };
  }

  async record(customerId: string, key: string): Promise<IdempotencyRow | null> {
    const { rows } = await this.pool.query<IdempotencyRow>(
      `select id, subject_id, endpoint, key::text, status::text as status, lock_token, locked_at, attempts,
              response_status, response_body, response_headers,
              ${ATTEMPT_TIMES}
         from idempotency_keys where subject_id = $1 and key = lower($2)::uuid`,
      [customerId, key],
    );
    return rows[0] ?? null;
  }

  async order(orderId: string): Promise<OrderRow | null> {
    const { rows } = await this.pool.query<OrderRow>(
      `select * , status::text as status from orders where id = $1::uuid`,
      [orderId],
    );
    return rows[0] ?? null;
  }

  async ordersOf(customerId: string): Promise<OrderRow[]> {
    const { rows } = await this.pool.query<OrderRow>(
      `select *, status::text as status from orders where customer_id = $1::uuid order by created_at desc`,
      [customerId],
    );
    return rows;
  }

  /** A finished record of `subjectId` whose retention has already run out: the next cleanup deletes it. */
  async insertExpired(subjectId: string): Promise<string> {
    const { rows } = await this.pool.query<{ key: string }>(
      `insert into idempotency_keys (subject_id, endpoint, key, request_hash, status, completed_at, expires_at)
       values ($1, 'POST /api/checkout', gen_random_uuid(), repeat('e', 64), 'completed', now() - interval '2 days', now() - interval '1 second')
       returning key::text`,
      [subjectId],
    );
    return rows[0]!.key;
  }

  /** Moves a finished record's expiry into the past, as if its retention had run out. */
  async expire(customerId: string, key: string): Promise<void> {
    const { rowCount } = await this.pool.query(
      `update idempotency_keys set expires_at = now() - interval '1 second'
        where subject_id = $1 and key = lower($2)::uuid and status <> 'in_progress'`,
      [customerId, key],
    );
    if (rowCount !== 1) throw new Error(`no finished record for key ${key} to expire`);
  }

  /**
   * Moves every time of an unfinished attempt `ms` into the past — when it
   * began, when its claim was taken, when its next try is due — as if that
   * long had passed for it alone. The in-progress TTL, the reconciler's first
   * look and the attempt's deadline are judged by the database's clock
   * against these, so the app then sees it exactly that much older. Answers
   * its times as the update left them (the app may act on it at once).
   */
  async ageAttempt(customerId: string, key: string, ms: number): Promise<AttemptTimes> {
    const aged = await this.ageAttempts(`subject_id = $1 and key = lower($2)::uuid`, [customerId, key], ms);
    if (aged.length !== 1) throw new Error(`no unfinished attempt for key ${key} to age`);
    return aged[0]!;
  }

  /** `ageAttempt` for every unfinished attempt of a customer. */
  ageAttemptsOf(customerId: string, ms: number): Promise<AttemptTimes[]> {
    return this.ageAttempts(`subject_id = $1`, [customerId], ms);
  }

  private async ageAttempts(where: string, params: unknown[], ms: number): Promise<AttemptTimes[]> {
    const by = `$${params.length + 1}::int * interval '1 millisecond'`;
    const { rows } = await this.pool.query<AttemptTimes>(
      `update idempotency_keys
          set created_at = created_at - ${by}, locked_at = locked_at - ${by}, next_attempt_at = next_attempt_at - ${by}
        where ${where} and status = 'in_progress'
        returning key::text, ${ATTEMPT_TIMES}`,
      [...params, ms],
    );
    return rows;
  }

  /**
   * Moves an inbox event's times `ms` into the past — its first delivery and
   * the end of its lease or backoff — as if that long had passed for it
   * alone: the maintenance loop and a redelivery then find it due. Answers
   * when it is due as the update left it.
   */
  async ageEvent(eventId: string, ms: number): Promise<Pick<WebhookEventRow, "next_attempt_in_ms">> {
    const { rows } = await this.pool.query<Pick<WebhookEventRow, "next_attempt_in_ms">>(
      `update webhook_events
          set received_at = received_at - $2::int * interval '1 millisecond',
              next_attempt_at = next_attempt_at - $2::int * interval '1 millisecond'
        where id = $1 and processed_at is null
        returning ${EVENT_DUE_IN}`,
      [eventId, ms],
    );
    if (rows.length !== 1) throw new Error(`no unprocessed event ${eventId} to age`);
    return rows[0]!;
  }

  /** The inbox's row for a Stripe event id, if it was stored. */
  async webhookEvent(eventId: string): Promise<WebhookEventRow | null> {
    const { rows } = await this.pool.query<WebhookEventRow>(
      `select id, type, payment_intent_id, processed_at, outcome, attempts, last_error, ${EVENT_DUE_IN}
         from webhook_events where id = $1`,
      [eventId],
    );
    return rows[0] ?? null;
  }

  /**
   * What a checkout writes before it calls Stripe — an in_progress claim and
   * its pending order — written directly, for tests where those writes become
   * visible only after Stripe's events arrive (`locked` false: released, no
   * owner), or where the server died right after them (`locked`: its owner's
   * lock, taken now).
   */
  async insertAttempt(a: {
    recordId: string;
    customerId: string;
    key: string;
    orderId: string;
    amountCents: number;
    paymentMethod: string;
    locked?: boolean;
    /** The body's fingerprint, for a shopper who later retries with that body; default a stand-in. */
    requestHash?: string;
  }): Promise<void> {
    await this.pool.query(
      `with record as (
         insert into idempotency_keys (id, subject_id, endpoint, key, request_hash, status, lock_token, locked_at)
         values ($1::uuid, $2, 'POST /api/checkout', $3::uuid, coalesce($8, repeat('a', 64)), 'in_progress',
                 case when $7 then gen_random_uuid() end, case when $7 then now() end) returning id)
       insert into orders (id, customer_id, idempotency_key_id, amount_cents, currency, payment_method)
       select $4::uuid, $2::uuid, record.id, $5, 'usd', $6 from record`,
      [
        a.recordId,
        a.customerId,
        a.key,
        a.orderId,
        a.amountCents,
        a.paymentMethod,
        a.locked ?? false,
        a.requestHash ?? null,
      ],
    );
  }

  /** A product of the catalogue, added for one test (a unique sku), so it can later be taken away. */
  async addProduct(sku: string, priceCents: number): Promise<void> {
    await this.pool.query(
      `insert into products (sku, name, description, price_cents, currency) values ($1, $1, 'for one test', $2, 'usd')`,
      [sku, priceCents],
    );
  }

  /**
   * Takes a product out of the catalogue under its sku: renamed, because the
   * order lines that sold it keep it (they follow the rename).
   */
  async retireProduct(sku: string): Promise<void> {
    await this.pool.query(`update products set sku = sku || '-retired' where sku = $1`, [sku]);
  }

  /** Sets a product's price, as a catalogue update would. */
  async setPrice(sku: string, priceCents: number): Promise<void> {
    await this.pool.query(`update products set price_cents = $2 where sku = $1`, [sku, priceCents]);
  }

  /**
   * Deletes every row an attempt wrote — its record, its order and the
   * order's lines — as a failover to an asynchronous replica loses the last
   * commits. Answers how many records and orders were deleted.
   */
  async loseAttempt(customerId: string, key: string): Promise<{ keys: number; orders: number }> {
    const { rows } = await this.pool.query<{ keys: number; orders: number }>(LOSE_ATTEMPT_SQL, [customerId, key]);
    return rows[0]!;
  }

  /**
   * Records an attempt as failed, as the reconciler does past its deadline,
   * and deletes its order and lines: a failover that kept the one commit and
   * lost the other.
   */
  async failAttemptLosingOrder(customerId: string, key: string): Promise<void> {
    const { rowCount } = await this.pool.query(
      `with record as (
         update idempotency_keys set status = 'failed', lock_token = null, response_status = 402,
                response_body = '{"error":"payment_failed","code":"attempt_expired"}', completed_at = now()
          where subject_id = $1 and key = lower($2)::uuid returning id
       )
       delete from orders where idempotency_key_id in (select id from record)`,
      [customerId, key],
    );
    if (rowCount !== 1) throw new Error(`no order to lose for ${key}`);
  }

  /**
   * Marks a processing order failed and nothing else: what a process that died
   * between a later failure's two writes leaves (lib/checkout/orders.ts,
   * paymentFailedLater).
   */
  async failOrderOnly(orderId: string): Promise<void> {
    const { rowCount } = await this.pool.query(
      `update orders set status = 'failed', decline_code = 'debit_not_authorized', failed_later_at = now()
        where id = $1::uuid and status = 'processing'`,
      [orderId],
    );
    if (rowCount !== 1) throw new Error(`no processing order ${orderId}`);
  }

  /** Whether the order's attempt record still holds its checkout (`live_group`, decision 0027). */
  async holdsCheckout(orderId: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ holds: boolean }>(
      `select k.live_group is not null as holds from orders o join idempotency_keys k on k.id = o.idempotency_key_id
        where o.id = $1::uuid`,
      [orderId],
    );
    if (rows.length !== 1) throw new Error(`no order ${orderId} with its record`);
    return rows[0]!.holds;
  }

  /**
   * An order as a refund made before the refunds ledger left it: no ledger
   * rows, and the hold recomputed from the rows (none), with `refundedCents`
   * what the order recorded of Stripe's refunds (0: the shop never heard).
   */
  async refundedBeforeLedger(orderId: string, refundedCents: number): Promise<void> {
    await this.pool.query(`delete from refunds where order_id = $1::uuid`, [orderId]);
    const { rowCount } = await this.pool.query(
      `update orders set refund_held_cents = 0, refunded_cents = $2 where id = $1::uuid and status = 'paid'`,
      [orderId, refundedCents],
    );
    if (rowCount !== 1) throw new Error(`no paid order ${orderId}`);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
