/**
 * The claim/replay engine of docs/contract.md §3. A request's record is inserted
 * `in_progress` and committed on its own, before any effect, so a duplicate
 * arriving during a slow charge sees it and is answered at once. Every write
 * of an outcome is fenced by the owner's lock token, so an owner that lost
 * its claim (it was presumed dead and retaken) can never overwrite anything.
 *
 * Plain SQL on any driver (sql.ts): `insert … on conflict do nothing`
 * combined with reading the winner in the same statement, and comparisons
 * against the database's clock (several app instances must agree on when a
 * lock is stale; their own clocks may not).
 */
import { randomUUID } from "node:crypto";
import { heldBy, heldRecord, type OutcomeEffect } from "./fence";
import type { Gate } from "./gate";
import { answerInFlight, began, ended, sentNow } from "./in-flight";
import { empty, raw, run, Sql, sql, type Database } from "./sql";
import type { AbandonedRecord, ClaimResult, IdempotencyStatus, KeyScope, Ownership, StoredResponse } from "./types";

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
  /**
   * A parked record (`park`) is first due for a look this long after its
   * claim, then each time after as long again as it has waited, until its
   * action timeout: a customer who finished the action and never came back
   * is found within minutes, not at the timeout. Default: due only at the
   * timeout.
   */
  parkedLookAfterMs?: number;
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
 * duplicate, the same for a fresh key. Fixed text, planned once per
 * connection, since every duplicate pays for it.
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
 * The claim with a gate (gate.ts), still one statement: a known key is read
 * and answered as by CLAIM_SQL; a fresh one is inserted only where the gate
 * admits it, and otherwise comes back as a row naming the gate's refusal.
 * $1-$6 as CLAIM_SQL, the gate's values after them.
 */
function gatedClaim(gate: Gate): Sql {
  const columns = Object.entries(gate.columns ?? {});
  for (const [name] of columns) if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Not a column name: ${name}`);
  const names = raw(columns.map(([name]) => `, ${name}`).join(""));
  const values = columns.map(([, value]) => sql`, ${value}`);
  return sql`
  with ${raw(EXISTING_SQL)}${gate.before ? sql`, ${gate.before}` : empty}, inserted as (
    insert into idempotency_keys (subject_id, endpoint, key, request_hash, lock_token, locked_at${names})
    select $1, $2, $3::uuid, $4, $5::uuid, now()${new Sql(["", ...values.map(() => "")], values)}
     where not exists (select 1 from existing) and (${gate.admits})
    on conflict (subject_id, endpoint, key) do nothing
    returning id, request_hash, status::text as status, lock_token, attempts,
              response_status, response_body, response_headers, true as inserted, false as lock_expired
  )${gate.after ? sql`, ${gate.after}` : empty}
  select *, null::text as refused, null::int as retry_after from existing
  union all
  select *, null::text, null::int from inserted
  union all
  select null, null, null, null, null, null, null, null, false, false, r.rule, r.retry_after
    from (${gate.refusal}) as r(rule, retry_after)
   where not exists (select 1 from existing) and not exists (select 1 from inserted)`;
}

interface Row {
  refused?: string | null;
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
    private readonly db: Database,
    private readonly options: IdempotencyOptions,
  ) {}

  /**
   * Claims `scope` for a request whose body has fingerprint `requestHash`,
   * past `gate` if given (gate.ts). One statement for a fresh key or a
   * duplicate; a retake adds one more; none for a duplicate of an attempt
   * this process is running (`inFlight`).
   */
  async claim<Rule extends string = string>(
    scope: KeyScope,
    requestHash: string,
    gate?: Gate<Rule>,
  ): Promise<ClaimResult<Rule>> {
    const known = this.inFlight(scope, requestHash);
    if (known) return known;
    const lockToken = randomUUID();
    const sent = sentNow();
    const claim = await this.claimFromDatabase(scope, requestHash, lockToken, gate);
    if (claim.kind === "claimed") began(this.db, scope, claim.owner, requestHash, sent);
    return claim;
  }

  /**
   * The claim's answer without the database, when this process runs the
   * attempt and the answer is certain (in-flight.ts): `in_progress` for the
   * same fingerprint, `mismatch` for another, while the owner holds its
   * claim and its lease cannot have ended. Null: only the database knows.
   */
  inFlight(scope: KeyScope, requestHash: string): Extract<ClaimResult, { kind: "in_progress" | "mismatch" }> | null {
    return answerInFlight(this.db, scope, requestHash, this.options.inProgressTtlMs, IN_PROGRESS_RETRY_AFTER_SECONDS);
  }

  private async claimFromDatabase<Rule extends string>(
    scope: KeyScope,
    requestHash: string,
    lockToken: string,
    gate: Gate<Rule> | undefined,
  ): Promise<ClaimResult<Rule>> {
    const row = await this.insertOrRead(scope, requestHash, lockToken, gate);
    if (row.refused) {
      const retryAfterSeconds = Number(row.retry_after ?? 1);
      const refusal = gate?.read
        ? gate.read(row.refused, retryAfterSeconds)
        : { rule: row.refused as Rule, retryAfterSeconds };
      return { kind: "refused", ...refusal };
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
    // A retake repeats the effect: the gate may say it costs too much now, and the client asks later.
    if (gate?.retake) return { kind: "refused", ...gate.retake };
    return this.retake(scope, row, lockToken);
  }

  private async insertOrRead(
    scope: KeyScope,
    requestHash: string,
    lockToken: string,
    gate: Gate | undefined,
  ): Promise<Row> {
    const base = [scope.subjectId, scope.endpoint, scope.key, requestHash, lockToken, this.options.inProgressTtlMs];
    const statement = gate ? gatedClaim(gate).render(base.length) : { text: CLAIM_SQL, values: [] };
    const values = [...base, ...statement.values];
    // A row inserted by a concurrent claim that committed after this
    // statement's snapshot makes the insert do nothing, yet stays invisible
    // to the select: then one more statement (with a new snapshot) sees it.
    // Likewise a gate's unique column (a concurrent fresh claim of the same
    // subject took the same open slot): the next statement picks another.
    for (let attempt = 0; attempt < 3; attempt++) {
      const rows = await this.db.query<Row>(statement.text, values).catch((err: { code?: string }) => {
        if (gate && err.code === "23505") return [];
        throw err;
      });
      if (rows[0]) return normalise(rows[0]);
    }
    throw new Error(`Claim of ${scope.endpoint} ${scope.key} neither inserted nor found a record`);
  }

  /** Compare-and-set on the previous lock token: of several retakers, one wins. */
  private async retake<Rule extends string>(scope: KeyScope, row: Row, lockToken: string): Promise<ClaimResult<Rule>> {
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
      previousToken === undefined ? empty : sql`and lock_token is not distinct from ${previousToken}::uuid`;
    const won = await run<{ attempts: number; past_deadline: boolean }>(
      this.db,
      sql`
      update idempotency_keys
         set lock_token = ${lockToken}::uuid, locked_at = now(), attempts = attempts + 1
       where id = ${recordId}::uuid and status = 'in_progress'
         ${sameHolder}
         and (locked_at is null or locked_at < now() - ${this.options.inProgressTtlMs}::float8 * interval '1 millisecond')
         and (retake_after is null or retake_after <= now())
      returning attempts, created_at < now() - ${this.options.attemptDeadlineMs}::float8 * interval '1 millisecond' as past_deadline`,
    );
    const row = won[0];
    // Taken over: whoever held it here before has lost it.
    if (row) ended(recordId);
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
  findAbandoned(endpoint: string, limit: number): Promise<AbandonedRecord[]> {
    const ttl = sql`${this.options.inProgressTtlMs}::float8 * interval '1 millisecond'`;
    return run<AbandonedRecord>(
      this.db,
      sql`
      select id::text as "recordId", subject_id as "subjectId", key::text as key, lock_token::text as "lockToken",
             response_status is not null as parked,
             (extract(epoch from (now() - created_at)) * 1000)::float8 as "ageMs"
        from idempotency_keys
       where status = 'in_progress' and endpoint = ${endpoint}
         and (locked_at is null or locked_at < now() - ${ttl})
         and coalesce(next_attempt_at, created_at + ${ttl}) <= now()
       order by coalesce(next_attempt_at, created_at + ${ttl})
       limit ${limit}::int`,
    );
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
    ended(owner.recordId);
    const deleted = await run(
      this.db,
      sql`
      delete from idempotency_keys
       where id = ${owner.recordId}::uuid and lock_token = ${owner.lockToken}::uuid and status = 'in_progress'
      returning 1 as deleted`,
    );
    return deleted.length === 1;
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
      sql`status = ${outcome.status}::idempotency_status,
             response_status = ${outcome.response.statusCode}::int,
             response_body = ${outcome.response.body}::text,
             response_headers = ${JSON.stringify(outcome.response.headers)}::jsonb,
             completed_at = now(),
             expires_at = now() + ${this.options.retentionHours}::float8 * interval '1 hour',
             lock_token = null, locked_at = null, next_attempt_at = null, open_slot = null`,
      effect,
    );
  }

  /**
   * Updates the owner's record with `set` and runs `effect` in the same
   * statement (atomic without a transaction, one round trip), only while
   * `owner` holds the claim. False, having written nothing, once fenced out.
   */
  private async fencedUpdate(owner: Ownership, set: Sql, effect?: OutcomeEffect): Promise<boolean> {
    // finish, release and park: each changes what a duplicate is told, so the database answers from now on.
    ended(owner.recordId);
    // Data-modifying WITH clauses always run to completion, read or not.
    const rows = await run<{ updated: number }>(
      this.db,
      sql`
      with updated as (
        update idempotency_keys set ${set}
         where ${heldRecord(owner)}
        returning id
      )${effect ? sql`, effect as (${effect(sql`(select id from updated)`)})` : empty}
      select count(*)::int as updated from updated`,
    );
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
        ? sql`now() + ${this.options.inProgressTtlMs}::float8 * interval '1 millisecond'`
        : sql`now() + least(${this.options.reconcileBackoffBaseMs ?? RECONCILE_BACKOFF_BASE_MS}::float8 * power(2, reconcile_tries), ${RECONCILE_BACKOFF_MAX_MS}::float8) * interval '1 millisecond'`;
    const retakeInterval = this.options.retakeIntervalMs ?? 0;
    return this.fencedUpdate(
      owner,
      sql`lock_token = null, locked_at = null,
             -- an attempt waiting for the shopper keeps at least its action timeout
             next_attempt_at = case when response_status is null then ${nextAttempt}
                                    else greatest(next_attempt_at, ${nextAttempt}) end,
             reconcile_tries = reconcile_tries + ${next === "backoff" ? 1 : 0}::int,
             retake_after = ${next === "client" && retakeInterval > 0 ? sql`now() + ${retakeInterval}::float8 * interval '1 millisecond'` : sql`null`}`,
      effect,
    );
  }

  /**
   * Leaves an attempt waiting for the shopper (3-D Secure): still
   * `in_progress`, owned by nobody, with `response` (a 202) replayed to every
   * duplicate. The reconciler looks at it once `actionTimeoutMs` has passed
   * since its claim, and before that at the times `parkedLookAfterMs` sets;
   * waiting again never moves the timeout. Fenced.
   */
  async park(
    owner: Ownership,
    response: StoredResponse,
    actionTimeoutMs: number,
    effect?: OutcomeEffect,
  ): Promise<boolean> {
    return this.fencedUpdate(
      owner,
      sql`response_status = ${response.statusCode}::int, response_body = ${response.body}::text,
             response_headers = ${JSON.stringify(response.headers)}::jsonb,
             next_attempt_at = ${this.nextLook(actionTimeoutMs)},
             lock_token = null, locked_at = null`,
      effect,
    );
  }

  /** Renews the owner's lock before another provider call (the TTL bounds one call). False once fenced out. */
  async refresh(owner: Ownership): Promise<boolean> {
    return (await run(this.db, sql`with ${heldBy(owner)} select id from owner`)).length === 1;
  }

  /** When a parked record is next due: its next look, never after its action timeout. */
  private nextLook(actionTimeoutMs: number) {
    const timeout = sql`created_at + ${actionTimeoutMs}::float8 * interval '1 millisecond'`;
    const look = this.options.parkedLookAfterMs ?? 0;
    if (look <= 0) return timeout;
    return sql`least(${timeout}, now() + greatest(${look}::float8 * interval '1 millisecond', now() - created_at))`;
  }

  private get renewAfterMs(): number {
    return this.options.renewAfterMs ?? 0;
  }

  /**
   * A finished record stops holding its group (`live_group`): what it did
   * failed after the fact (a debit returned days later), so the group may be
   * claimed again. True when it held one.
   */
  async leaveGroup(recordId: string): Promise<boolean> {
    const rows = await run(
      this.db,
      sql`update idempotency_keys set live_group = null
           where id = ${recordId}::uuid and live_group is not null and status <> 'in_progress' returning id`,
    );
    return rows.length === 1;
  }

  /** The state of one attempt (`GET /api/checkout/{key}`, a return from 3-D Secure). */
  async find(
    scope: KeyScope,
  ): Promise<{ recordId: string; status: IdempotencyStatus; owned: boolean; response?: StoredResponse } | null> {
    const rows = await run<Row>(
      this.db,
      sql`
      select id::text as id, request_hash, status::text as status, lock_token::text as lock_token, attempts,
             response_status, response_body, response_headers, false as inserted, false as lock_expired
        from idempotency_keys
       where subject_id = ${scope.subjectId} and endpoint = ${scope.endpoint} and key = ${scope.key}::uuid`,
    );
    const row = rows[0];
    if (!row) return null;
    // owned: someone holds the attempt right now (a request, a retake, a 3-D Secure return settling it).
    const owned = row.lock_token !== null;
    return row.response_status === null
      ? { recordId: row.id, status: row.status, owned }
      : { recordId: row.id, status: row.status, owned, response: storedResponse(row) };
  }
}

/** A stored answer to give without doing anything: a finished record, or one waiting for the shopper. */
function answerFor(row: Row): ClaimResult<never> | null {
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
