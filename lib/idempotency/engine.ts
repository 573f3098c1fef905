import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "../generated/prisma/client";
import type { ClaimResult, IdempotencyStatus, KeyScope, Ownership, StoredResponse } from "./types";

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
export interface IdempotencyOptions {
  /** After this an in_progress record's owner is presumed dead and may be replaced. */
  inProgressTtlMs: number;
  /** Finished records are kept this long, then removed by cleanup. */
  retentionHours: number;
}

/** How long a duplicate should wait before asking again: a charge usually takes about a second. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

/**
 * A write that must land together with an outcome (e.g. marking the order
 * paid): one data-modifying statement, given `finishedId` — the record's id
 * if this owner's outcome was written, NULL if it was fenced out — to match
 * its rows by, so a fenced-out owner's effect touches nothing.
 */
export type OutcomeEffect = (finishedId: Prisma.Sql) => Prisma.Sql;

interface Row {
  id: string;
  request_hash: string;
  status: IdempotencyStatus;
  lock_token: string | null;
  attempts: number;
  response_status: number | null;
  response_body: unknown;
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
  async claim(scope: KeyScope, requestHash: string): Promise<ClaimResult> {
    const lockToken = randomUUID();
    const row = await this.insertOrRead(scope, requestHash, lockToken);
    if (row.inserted) {
      return { kind: "claimed", owner: { recordId: row.id, lockToken, attempt: 1, retaken: false } };
    }
    if (row.request_hash !== requestHash) return { kind: "mismatch" };
    if (row.status !== "in_progress") return { kind: "replay", status: row.status, response: storedResponse(row) };
    if (!row.lock_expired) return { kind: "in_progress", retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
    return this.retake(scope, requestHash, row, lockToken);
  }

  private async insertOrRead(scope: KeyScope, requestHash: string, lockToken: string): Promise<Row> {
    // A row inserted by a concurrent claim that committed after this
    // statement's snapshot makes the insert do nothing, yet stays invisible
    // to the select: then one more statement (with a new snapshot) sees it.
    for (let attempt = 0; attempt < 2; attempt++) {
      const rows = await this.prisma.$queryRaw<Row[]>`
        with inserted as (
          insert into idempotency_keys (subject_id, endpoint, key, request_hash, lock_token, locked_at)
          values (${scope.subjectId}, ${scope.endpoint}, ${scope.key}::uuid, ${requestHash}, ${lockToken}::uuid, now())
          on conflict (subject_id, endpoint, key) do nothing
          returning id, request_hash, status::text as status, lock_token, attempts,
                    response_status, response_body, response_headers, true as inserted, false as lock_expired
        )
        select * from inserted
        union all
        select id, request_hash, status::text, lock_token, attempts, response_status, response_body, response_headers,
               false, (locked_at is null or locked_at < now() - ${this.options.inProgressTtlMs} * interval '1 millisecond')
          from idempotency_keys
         where subject_id = ${scope.subjectId} and endpoint = ${scope.endpoint} and key = ${scope.key}::uuid
           and not exists (select 1 from inserted)`;
      if (rows[0]) return normalise(rows[0]);
    }
    throw new Error(`Claim of ${scope.endpoint} ${scope.key} neither inserted nor found a record`);
  }

  /** Compare-and-set on the previous lock token: of several retakers, one wins. */
  private async retake(scope: KeyScope, requestHash: string, row: Row, lockToken: string): Promise<ClaimResult> {
    const owner = await this.compareAndSetOwner(row.id, row.lock_token, lockToken);
    if (owner) return { kind: "claimed", owner };
    // Another request retook it first, or its owner just finished: answer as a duplicate.
    const current = await this.insertOrRead(scope, requestHash, randomUUID());
    if (current.status !== "in_progress") {
      return { kind: "replay", status: current.status, response: storedResponse(current) };
    }
    return { kind: "in_progress", retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
  }

  private async compareAndSetOwner(recordId: string, previousToken: string | null, lockToken: string): Promise<Ownership | null> {
    const won = await this.prisma.$queryRaw<Array<{ attempts: number }>>`
      update idempotency_keys
         set lock_token = ${lockToken}::uuid, locked_at = now(), attempts = attempts + 1
       where id = ${recordId}::uuid and status = 'in_progress'
         and lock_token is not distinct from ${previousToken}::uuid
         and (locked_at is null or locked_at < now() - ${this.options.inProgressTtlMs} * interval '1 millisecond')
      returning attempts`;
    return won[0] ? { recordId, lockToken, attempt: Number(won[0].attempts), retaken: true } : null;
  }

  /**
   * In-progress records nobody is finishing: an owner presumed dead (lock
   * older than the TTL), or a claim released after a transient failure whose
   * client never came back (created longer than the TTL ago).
   */
  async findAbandoned(endpoint: string, limit: number): Promise<Array<{ recordId: string; subjectId: string; key: string; lockToken: string | null }>> {
    return this.prisma.$queryRaw`
      select id as "recordId", subject_id as "subjectId", key::text as key, lock_token as "lockToken"
        from idempotency_keys
       where status = 'in_progress' and endpoint = ${endpoint}
         and (locked_at < now() - ${this.options.inProgressTtlMs} * interval '1 millisecond'
              or (locked_at is null and created_at < now() - ${this.options.inProgressTtlMs} * interval '1 millisecond'))
       order by created_at
       limit ${limit}`;
  }

  /** Takes an abandoned record over, exactly as a client's retry would retake it. */
  takeOver(record: { recordId: string; lockToken: string | null }): Promise<Ownership | null> {
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
    // Data-modifying WITH clauses always run to completion, read or not.
    const rows = await this.prisma.$queryRaw<Array<{ finished: number }>>`
      with finished as (
        update idempotency_keys
           set status = ${outcome.status}::idempotency_status,
               response_status = ${outcome.response.statusCode},
               response_body = ${JSON.stringify(outcome.response.body)}::jsonb,
               response_headers = ${JSON.stringify(outcome.response.headers)}::jsonb,
               completed_at = now(),
               expires_at = now() + ${this.options.retentionHours} * interval '1 hour',
               lock_token = null, locked_at = null
         where id = ${owner.recordId}::uuid and lock_token = ${owner.lockToken}::uuid and status = 'in_progress'
        returning id
      )${effect ? Prisma.sql`, effect as (${effect(Prisma.sql`(select id from finished)`)})` : Prisma.empty}
      select count(*)::int as finished from finished`;
    return rows[0]?.finished === 1;
  }

  /**
   * Gives the claim up without an outcome (the provider's answer is unknown or
   * transient): the record stays in_progress with no owner, so the next retry
   * with the same key retakes it at once and repeats the effect safely.
   */
  async release(owner: Ownership): Promise<boolean> {
    const updated = await this.prisma.$executeRaw`
      update idempotency_keys set lock_token = null, locked_at = null
       where id = ${owner.recordId}::uuid and lock_token = ${owner.lockToken}::uuid and status = 'in_progress'`;
    return updated === 1;
  }

  /** True while `owner` still holds the claim. */
  async holds(owner: Ownership): Promise<boolean> {
    return (await this.prisma.$queryRaw<unknown[]>(heldBy(owner))).length === 1;
  }

  /** The state of one attempt, for `GET /api/checkout/{key}`. */
  async find(scope: KeyScope): Promise<{ status: IdempotencyStatus; response?: StoredResponse } | null> {
    const rows = await this.prisma.$queryRaw<Row[]>`
      select id, request_hash, status::text as status, lock_token, attempts,
             response_status, response_body, response_headers, false as inserted, false as lock_expired
        from idempotency_keys
       where subject_id = ${scope.subjectId} and endpoint = ${scope.endpoint} and key = ${scope.key}::uuid`;
    const row = rows[0];
    if (!row) return null;
    return row.status === "in_progress" ? { status: row.status } : { status: row.status, response: storedResponse(row) };
  }
}

/**
 * The claim's record while `owner` holds it, locked until the statement (or
 * transaction) ends, so it cannot be retaken meanwhile; no row once the owner
 * is fenced out. Writes made between claim and outcome select from it (as a
 * WITH clause) to land only while the claim is theirs.
 */
export function heldBy(owner: Ownership): Prisma.Sql {
  return Prisma.sql`
    select id from idempotency_keys
     where id = ${owner.recordId}::uuid and lock_token = ${owner.lockToken}::uuid and status = 'in_progress'
       for update`;
}

function normalise(row: Row): Row {
  return { ...row, attempts: Number(row.attempts) };
}

function storedResponse(row: Row): StoredResponse {
  return { statusCode: row.response_status ?? 500, body: row.response_body, headers: row.response_headers ?? {} };
}
