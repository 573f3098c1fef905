/**
 * The claim/replay engine of docs/contract.md §3. A request's record is inserted
 * `in_progress` and committed on its own, before any effect, so a duplicate
 * arriving during a slow charge sees it and is answered at once. Every write
 * of an outcome is fenced by the owner's lock token, so an owner that lost
 * its claim (it was presumed dead and retaken) can never overwrite anything.
 *
 * Raw SQL is used where Prisma cannot say it: `insert … on conflict do
 * nothing` combined with reading the winner in the same statement, and
 * comparisons against the database's clock (several app instances must agree
 * on when a lock is stale; their own clocks may not).
 */
import { randomUUID } from "node:crypto";
import { queryRows } from "../db";
import { Prisma, type PrismaClient } from "../generated/prisma/client";
import { heldBy, heldRecord, type OutcomeEffect } from "./fence";
import type {
  AbandonedRecord,
  Admission,
  AdmissionRule,
  ClaimResult,
  IdempotencyStatus,
  KeyScope,
  Ownership,
  StoredResponse,
} from "./types";

// Re-exported for the checkout's order write (lib/checkout/orders.ts).
export { heldBy, type OutcomeEffect } from "./fence";

export interface IdempotencyOptions {
  /** After this an in_progress record's owner is presumed dead and may be replaced. */
  inProgressTtlMs: number;
  /** Finished records are kept this long, then removed by cleanup. */
  retentionHours: number;
  /** After this an attempt is settled for good: nothing new is started for it. */
  attemptDeadlineMs: number;
  /**
   * An owner's lock is rewritten (renewed) by its writes only once it is older
   * than this; default 0, always. The app sets the TTL less the Stripe
   * client's worst-case call: a younger lock outlives the next call anyway.
   */
  renewAfterMs?: number;
  /** The reconciler's first backoff for an attempt whose outcome stays unknown; default RECONCILE_BACKOFF_BASE_MS. */
  reconcileBackoffBaseMs?: number;
  /**
   * A claim released after an unknown outcome is retaken by a client's retry
   * no sooner than this (default 0): one key retried as fast as it is
   * answered cannot keep the provider busy.
   */
  retakeIntervalMs?: number;
}

/** The reconciler's backoff for an attempt whose outcome stays unknown: 10 s, 20 s, … up to 10 minutes. */
export const RECONCILE_BACKOFF_BASE_MS = 10_000;
export const RECONCILE_BACKOFF_MAX_MS = 600_000;

/** How long a duplicate should wait before asking again: a charge usually takes about a second. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

/** The record already there for $1 subject, $2 endpoint, $3 key, and whether its lock ($6 TTL, ms) is stale. */
const EXISTING_SQL = `existing as (
    select id, request_hash, status::text as status, lock_token, attempts, response_status, response_body, response_headers,
           false as inserted, (locked_at is null or locked_at < now() - $6::int * interval '1 millisecond')
                              and (retake_after is null or retake_after <= now()) as lock_expired
      from idempotency_keys
     where subject_id = $1 and endpoint = $2 and key = $3::uuid
  )`;

/**
 * The claim, one statement: read the record already there (and whether its
 * owner's lock is stale), or else insert it. Reading first spares a duplicate
 * the insert's tuple and its conflict check: a third less PostgreSQL CPU per
 * duplicate, the same for a fresh key (docs/performance.md). Sent through
 * `queryRows` (pg, no Prisma) since every duplicate pays for it.
 * $1 subject, $2 endpoint, $3 key, $4 request hash, $5 lock token,
 * $6 in-progress TTL (ms).
 */
const CLAIM_SQL = `
  with ${EXISTING_SQL}, inserted as (
    insert into idempotency_keys (subject_id, endpoint, key, request_hash, lock_token, locked_at)
    select $1, $2, $3::uuid, $4, $5::uuid, now()
     where not exists (select 1 from existing)
    on conflict (subject_id, endpoint, key) do nothing
    returning id, request_hash, status::text as status, lock_token, attempts,
              response_status, response_body, response_headers, true as inserted, false as lock_expired
  )
  select * from existing
  union all
  select * from inserted`;

/**
 * The claim with its admission, still one statement (docs/decisions/0013-the-gate-in-the-claim.md):
 * a known key is read and answered as by CLAIM_SQL, whatever the limits; a
 * fresh one is inserted only if its customer has an open slot
 * (`open_slot`, unique per customer while set, so two racing claims cannot
 * both take the last) and the address's and the session's counts of keys
 * admitted in this window are under their limits, and then counted. The
 * address's count is spread over shards, so the shoppers behind one address
 * never queue on one row. A refusal comes back as a row naming its rule;
 * nothing is written for it.
 * $1-$6 as CLAIM_SQL; $7 admit (false: read only), $8 open attempts allowed,
 * $9 address, $10 per address, $11 per session, $12 window (s), $13 address
 * shard, $14 how long a customer with no open slot waits (s), $15 declines
 * per session, $16 declines per address, $17 the declines' window (s), $18
 * the card's fingerprint (null: not counted per card), $19 declines per card.
 */
const ADMIT_SQL = `
  with ${EXISTING_SQL}, win as (
    select to_timestamp(floor(extract(epoch from now()) / $12::int) * $12::int) as start
  ), dwin as (
    select to_timestamp(floor(extract(epoch from now()) / $17::int) * $17::int) as start
  ), open_attempts as (
    select count(*)::int as n from idempotency_keys where subject_id = $1 and endpoint = $2 and open_slot is not null
  ), verdict as (
    select case
      when exists (select 1 from existing) then 'known'
      when not $7::boolean then 'blocked'
      when (select coalesce(sum(c.hits), 0) from admission_counters c, dwin
             where c.rule = 'declines_per_session' and c.bucket = $1 and c.window_start = dwin.start) >= $15::int
        or (select coalesce(sum(c.hits), 0) from admission_counters c, dwin
             where c.rule = 'declines_per_address' and c.bucket = $9 and c.window_start = dwin.start) >= $16::int
        or $18::text is not null and (select coalesce(sum(c.hits), 0) from admission_counters c, dwin
             where c.rule = 'declines_per_card' and c.bucket = $18::text and c.window_start = dwin.start) >= $19::int
        then 'too_many_declines'
      when (select n from open_attempts) >= $8::int then 'open_attempts'
      when (select coalesce(sum(c.hits), 0) from admission_counters c, win
             where c.rule = 'checkout_per_address' and c.bucket = $9 and c.window_start = win.start) >= $10::int
        then 'checkout_per_address'
      when (select coalesce(sum(c.hits), 0) from admission_counters c, win
             where c.rule = 'checkout_per_session' and c.bucket = $1 and c.window_start = win.start) >= $11::int
        then 'checkout_per_session'
      else 'admitted' end as decision
  ), inserted as (
    insert into idempotency_keys (subject_id, endpoint, key, request_hash, lock_token, locked_at, open_slot)
    select $1, $2, $3::uuid, $4, $5::uuid, now(),
           (select s from generate_series(0, (select n from open_attempts)) s
             where not exists (select 1 from idempotency_keys o where o.subject_id = $1 and o.endpoint = $2 and o.open_slot = s)
             order by s limit 1)
     where (select decision from verdict) = 'admitted'
    on conflict (subject_id, endpoint, key) do nothing
    returning id, request_hash, status::text as status, lock_token, attempts,
              response_status, response_body, response_headers, true as inserted, false as lock_expired
  ), counted as (
    insert into admission_counters (rule, bucket, window_start, shard, hits)
    select r.rule, r.bucket, win.start, r.shard, 1
      from inserted, win,
           (values ('checkout_per_address', $9::text, $13::int), ('checkout_per_session', $1::text, 0)) as r(rule, bucket, shard)
    on conflict (rule, bucket, window_start, shard) do update set hits = admission_counters.hits + 1
  )
  select *, null::text as refused, null::int as retry_after from existing
  union all
  select *, null::text, null::int from inserted
  union all
  select null, null, null, null, null, null, null, null, false, false, v.decision,
         case when v.decision = 'open_attempts' then $14::int
              when v.decision = 'too_many_declines'
                then greatest(1, ceil(extract(epoch from dwin.start + $17::int * interval '1 second' - now())))::int
              else greatest(1, ceil(extract(epoch from win.start + $12::int * interval '1 second' - now())))::int end
    from verdict v, win, dwin
   where v.decision not in ('known', 'admitted')`;

/** Spreads one address's count over this many rows. */
export const ADDRESS_SHARDS = 8;
/** How long a shopper with every open slot taken waits before asking again. */
export const OPEN_ATTEMPTS_RETRY_AFTER_SECONDS = 5;

interface Row {
  refused?: AdmissionRule | "blocked" | null;
  retry_after?: number | null;
  id: string;
  request_hash: string;
  status: IdempotencyStatus;
  lock_token: string | null;
  attempts: number;
  response_status: number | null;
  response_body: string | null;
  response_headers: Record<string, string> | null;
  inserted: boolean;
  lock_expired: boolean;
}

export class IdempotencyEngine {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly options: IdempotencyOptions,
  ) {}

  /**
   * Claims `scope` for a request whose body has fingerprint `requestHash`.
   * One statement for a fresh key or a duplicate; a retake adds one more.
   */
  async claim(scope: KeyScope, requestHash: string, admission?: Admission): Promise<ClaimResult> {
    const lockToken = randomUUID();
    const row = await this.insertOrRead(scope, requestHash, lockToken, admission);
    if (row.refused) {
      if (row.refused === "blocked" && admission && admission.admit !== true) {
        return {
          kind: "refused",
          rule: admission.admit.blockedBy,
          retryAfterSeconds: admission.admit.retryAfterSeconds,
        };
      }
      return {
        kind: "refused",
        rule: row.refused === "blocked" ? "checkout_per_address" : row.refused,
        retryAfterSeconds: Number(row.retry_after ?? 1),
      };
    }
    if (row.inserted) {
      return {
        kind: "claimed",
        owner: {
          recordId: row.id,
          lockToken,
          attempt: 1,
          retaken: false,
          pastDeadline: false,
          renewAfterMs: this.renewAfterMs,
        },
      };
    }
    if (row.request_hash !== requestHash) return { kind: "mismatch" };
    const answer = answerFor(row);
    if (answer) return answer;
    if (!row.lock_expired) return { kind: "in_progress", retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
    // A retake asks the provider again: without a unit of its budget, the client asks later.
    if (admission?.retake && admission.retake !== true)
      return {
        kind: "refused",
        rule: admission.retake.blockedBy,
        retryAfterSeconds: admission.retake.retryAfterSeconds,
      };
    return this.retake(scope, row, lockToken);
  }

  private async insertOrRead(
    scope: KeyScope,
    requestHash: string,
    lockToken: string,
    admission: Admission | undefined,
  ): Promise<Row> {
    const values: unknown[] = [
      scope.subjectId,
      scope.endpoint,
      scope.key,
      requestHash,
      lockToken,
      this.options.inProgressTtlMs,
    ];
    if (admission) {
      values.push(
        admission.admit === true,
        admission.maxOpenAttempts,
        admission.address,
        admission.perAddress,
        admission.perSession,
        admission.windowSeconds,
        Math.floor(Math.random() * ADDRESS_SHARDS),
        OPEN_ATTEMPTS_RETRY_AFTER_SECONDS,
        admission.declinesPerSession,
        admission.declinesPerAddress,
        admission.declineWindowSeconds,
        admission.card ?? null,
        admission.declinesPerCard,
      );
    }
    // A row inserted by a concurrent claim that committed after this
    // statement's snapshot makes the insert do nothing, yet stays invisible
    // to the select: then one more statement (with a new snapshot) sees it.
    // Likewise a concurrent fresh claim of the same customer that took the
    // same open slot: the next statement sees it and picks another.
    for (let attempt = 0; attempt < 3; attempt++) {
      const rows = await queryRows<Row>(this.prisma, admission ? ADMIT_SQL : CLAIM_SQL, values).catch(
        (err: { code?: string; constraint?: string }) => {
          if (err.code === "23505" && err.constraint === "idempotency_keys_subject_id_endpoint_open_slot_key")
            return [];
          throw err;
        },
      );
      if (rows[0]) return normalise(rows[0]);
    }
    throw new Error(`Claim of ${scope.endpoint} ${scope.key} neither inserted nor found a record`);
  }

  /**
   * Counts a declined payment against its session, its address and its card
   * (`address`, `card`: the card's fingerprint; null: not counted by it): the
   * card-testing brake that ADMIT_SQL checks. One statement, on the
   * decline's path only. A card's count is spread over shards like an
   * address's: one card tried from many places never queues on one row.
   */
  async countDecline(
    subjectId: string,
    address: string | null,
    windowSeconds: number,
    card: string | null = null,
  ): Promise<void> {
    await queryRows(
      this.prisma,
      `insert into admission_counters (rule, bucket, window_start, shard, hits)
       select r.rule, r.bucket, to_timestamp(floor(extract(epoch from now()) / $3::int) * $3::int), r.shard, 1
         from (values ('declines_per_session', $1::text, 0), ('declines_per_address', $2::text, $4::int),
                      ('declines_per_card', $5::text, $4::int)) as r(rule, bucket, shard)
        where r.bucket is not null
       on conflict (rule, bucket, window_start, shard) do update set hits = admission_counters.hits + 1`,
      [subjectId, address, windowSeconds, Math.floor(Math.random() * ADDRESS_SHARDS), card],
    );
  }

  /** Compare-and-set on the previous lock token: of several retakers, one wins. */
  private async retake(scope: KeyScope, row: Row, lockToken: string): Promise<ClaimResult> {
    const owner = await this.compareAndSetOwner(row.id, row.lock_token, lockToken);
    if (owner) return { kind: "claimed", owner };
    // Another request retook it first, its owner just finished, or a
    // reconciler deleted it: answer as a duplicate. Only read here — an
    // insert would create a record nobody owns, blocking the key for a TTL.
    const current = await this.find(scope);
    if (current?.response) return { kind: "replay", status: current.status, response: current.response };
    return { kind: "in_progress", retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
  }

  /** `previousToken` undefined: whoever holds it, as long as nobody live does (a return from 3-D Secure). */
  private async compareAndSetOwner(
    recordId: string,
    previousToken: string | null | undefined,
    lockToken: string,
  ): Promise<Ownership | null> {
    const sameHolder =
      previousToken === undefined
        ? Prisma.empty
        : Prisma.sql`and lock_token is not distinct from ${previousToken}::uuid`;
    const won = await this.prisma.$queryRaw<Array<{ attempts: number; past_deadline: boolean }>>`
      update idempotency_keys
         set lock_token = ${lockToken}::uuid, locked_at = now(), attempts = attempts + 1
       where id = ${recordId}::uuid and status = 'in_progress'
         ${sameHolder}
         and (locked_at is null or locked_at < now() - ${this.options.inProgressTtlMs} * interval '1 millisecond')
         and (retake_after is null or retake_after <= now())
      returning attempts, created_at < now() - ${this.options.attemptDeadlineMs} * interval '1 millisecond' as past_deadline`;
    const row = won[0];
    return row
      ? {
          recordId,
          lockToken,
          attempt: Number(row.attempts),
          retaken: true,
          pastDeadline: row.past_deadline,
          renewAfterMs: this.renewAfterMs,
        }
      : null;
  }

  /**
   * Unfinished records nobody is working on and whose next try is due: an
   * owner presumed dead (lock older than the TTL), a claim released after a
   * transient failure, or an attempt waiting for the shopper past its action
   * timeout. Each record carries its own next-try time (backoff), and the
   * earliest due come first, so a poisoned record never starves the rest.
   */
  async findAbandoned(endpoint: string, limit: number): Promise<AbandonedRecord[]> {
    const ttl = Prisma.sql`${this.options.inProgressTtlMs} * interval '1 millisecond'`;
    return this.prisma.$queryRaw`
      select id as "recordId", subject_id as "subjectId", key::text as key, lock_token as "lockToken",
             response_status is not null as parked
        from idempotency_keys
       where status = 'in_progress' and endpoint = ${endpoint}
         and (locked_at is null or locked_at < now() - ${ttl})
         and coalesce(next_attempt_at, created_at + ${ttl}) <= now()
       order by coalesce(next_attempt_at, created_at + ${ttl})
       limit ${limit}`;
  }

  /**
   * Takes a record nobody is working on over, exactly as a client's retry
   * would retake it: with the lock token it was seen with (of several
   * reconcilers, one wins), or — token omitted — from whoever left it.
   */
  takeOver(record: { recordId: string; lockToken?: string | null }): Promise<Ownership | null> {
    return this.compareAndSetOwner(record.recordId, record.lockToken, randomUUID());
  }

  /**
   * Deletes a claim whose effect never started (its owner died before writing
   * anything), so the client's next retry is a fresh attempt. Fenced.
   */
  async abandon(owner: Ownership): Promise<boolean> {
    const deleted = await this.prisma.$executeRaw`
      delete from idempotency_keys
       where id = ${owner.recordId}::uuid and lock_token = ${owner.lockToken}::uuid and status = 'in_progress'`;
    return deleted === 1;
  }

  /**
   * Records the outcome and `effect` in one statement (atomic without a
   * transaction, one round trip), only if `owner` still holds the claim.
   * Returns false, having written nothing, when the owner was fenced out.
   */
  async finish(
    owner: Ownership,
    outcome: { status: "completed" | "failed"; response: StoredResponse },
    effect?: OutcomeEffect,
  ): Promise<boolean> {
    return this.fencedUpdate(
      owner,
      Prisma.sql`status = ${outcome.status}::idempotency_status,
             response_status = ${outcome.response.statusCode},
             response_body = ${outcome.response.body},
             response_headers = ${JSON.stringify(outcome.response.headers)}::jsonb,
             completed_at = now(),
             expires_at = now() + ${this.options.retentionHours} * interval '1 hour',
             lock_token = null, locked_at = null, next_attempt_at = null, open_slot = null`,
      effect,
    );
  }

  /**
   * Updates the owner's record with `set` and runs `effect` in the same
   * statement (atomic without a transaction, one round trip), only while
   * `owner` holds the claim. False, having written nothing, once fenced out.
   */
  private async fencedUpdate(owner: Ownership, set: Prisma.Sql, effect?: OutcomeEffect): Promise<boolean> {
    // Data-modifying WITH clauses always run to completion, read or not.
    const rows = await this.prisma.$queryRaw<Array<{ updated: number }>>`
      with updated as (
        update idempotency_keys set ${set}
         where ${heldRecord(owner)}
        returning id
      )${effect ? Prisma.sql`, effect as (${effect(Prisma.sql`(select id from updated)`)})` : Prisma.empty}
      select count(*)::int as updated from updated`;
    return rows[0]?.updated === 1;
  }

  /**
   * Gives the claim up without an outcome (the provider's answer is unknown or
   * transient): the record stays in_progress with no owner, so the next retry
   * with the same key retakes it at once and repeats the effect safely.
   */
  async release(owner: Ownership, next: "client" | "backoff" = "client", effect?: OutcomeEffect): Promise<boolean> {
    // The client's retry comes first; the reconciler looks after a TTL, or —
    // when it was the reconciler that found the outcome unknown — after its
    // own growing backoff for this record alone.
    const nextAttempt =
      next === "client"
        ? Prisma.sql`now() + ${this.options.inProgressTtlMs} * interval '1 millisecond'`
        : Prisma.sql`now() + least(${this.options.reconcileBackoffBaseMs ?? RECONCILE_BACKOFF_BASE_MS} * power(2, reconcile_tries), ${RECONCILE_BACKOFF_MAX_MS}) * interval '1 millisecond'`;
    return this.fencedUpdate(
      owner,
      Prisma.sql`lock_token = null, locked_at = null,
             -- an attempt waiting for the shopper keeps at least its action timeout
             next_attempt_at = case when response_status is null then ${nextAttempt}
                                    else greatest(next_attempt_at, ${nextAttempt}) end,
             reconcile_tries = reconcile_tries + ${next === "backoff" ? 1 : 0},
             retake_after = ${next === "client" && (this.options.retakeIntervalMs ?? 0) > 0 ? Prisma.sql`now() + ${this.options.retakeIntervalMs ?? 0} * interval '1 millisecond'` : Prisma.sql`null`}`,
      effect,
    );
  }

  /**
   * Leaves an attempt waiting for the shopper (3-D Secure): still
   * `in_progress`, owned by nobody, with `response` (a 202) replayed to every
   * duplicate. The reconciler looks at it once `actionTimeoutMs` has passed
   * since it first waited; waiting again does not move that time. Fenced.
   */
  async park(
    owner: Ownership,
    response: StoredResponse,
    actionTimeoutMs: number,
    effect?: OutcomeEffect,
  ): Promise<boolean> {
    return this.fencedUpdate(
      owner,
      Prisma.sql`response_status = ${response.statusCode}, response_body = ${response.body},
             response_headers = ${JSON.stringify(response.headers)}::jsonb,
             next_attempt_at = case when response_status is null
                                    then now() + ${actionTimeoutMs} * interval '1 millisecond'
                                    else next_attempt_at end,
             lock_token = null, locked_at = null`,
      effect,
    );
  }

  /** Renews the owner's lock before another provider call (the TTL bounds one call). False once fenced out. */
  async refresh(owner: Ownership): Promise<boolean> {
    return (await this.prisma.$queryRaw<unknown[]>`with ${heldBy(owner)} select id from owner`).length === 1;
  }

  private get renewAfterMs(): number {
    return this.options.renewAfterMs ?? 0;
  }

  /** The state of one attempt (`GET /api/checkout/{key}`, a return from 3-D Secure). */
  async find(
    scope: KeyScope,
  ): Promise<{ recordId: string; status: IdempotencyStatus; response?: StoredResponse } | null> {
    const rows = await this.prisma.$queryRaw<Row[]>`
      select id, request_hash, status::text as status, lock_token, attempts,
             response_status, response_body, response_headers, false as inserted, false as lock_expired
        from idempotency_keys
       where subject_id = ${scope.subjectId} and endpoint = ${scope.endpoint} and key = ${scope.key}::uuid`;
    const row = rows[0];
    if (!row) return null;
    return row.response_status === null
      ? { recordId: row.id, status: row.status }
      : { recordId: row.id, status: row.status, response: storedResponse(row) };
  }
}

/** A stored answer to give without doing anything: a finished record, or one waiting for the shopper. */
function answerFor(row: Row): ClaimResult | null {
  if (row.status !== "in_progress") return { kind: "replay", status: row.status, response: storedResponse(row) };
  if (row.response_status !== null && row.lock_token === null)
    return { kind: "replay", status: row.status, response: storedResponse(row) };
  return null;
}

function normalise(row: Row): Row {
  return { ...row, attempts: Number(row.attempts) };
}

function storedResponse(row: Row): StoredResponse {
  return {
    statusCode: row.response_status ?? 500,
    body: row.response_body ?? "null",
    headers: row.response_headers ?? {},
  };
}
