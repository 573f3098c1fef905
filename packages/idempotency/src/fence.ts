/**
 * The fence: SQL that lets a write land only while its owner still holds the
 * claim. Every outcome write (engine.ts) goes through it, and so can the
 * caller's own writes between claim and outcome (`heldBy`), so an owner that
 * was presumed dead and retaken writes nothing.
 */
import { sql, type Sql } from "./sql";
import type { Ownership } from "./types";

/**
 * A write that must land together with an outcome (e.g. marking the order
 * paid): one data-modifying statement, given `finishedId` — the record's id
 * if this owner's outcome was written, NULL if it was fenced out — to match
 * its rows by, so a fenced-out owner's effect touches nothing.
 */
export type OutcomeEffect = (finishedId: Sql) => Sql;

/** The predicate on `idempotency_keys` that is true only for `owner`'s own record while it holds it. */
export function heldRecord(owner: Ownership): Sql {
  return sql`id = ${owner.recordId}::uuid and lock_token = ${owner.lockToken}::uuid and status = 'in_progress'`;
}

/**
 * WITH clauses ending in `owner`: the claim's record while `owner` holds it,
 * locked until the statement ends so it cannot be retaken meanwhile, and its
 * lock renewed when it is older than `owner.renewAfterMs` (the owner is about
 * to call the provider again); no row once the owner is fenced out. Writes
 * made between claim and outcome select from `owner` to land only while the
 * claim is theirs. Two complementary clauses, because a data-modifying one
 * cannot be nested: exactly one of them sees the row.
 */
export function heldBy(owner: Ownership): Sql {
  const mine = heldRecord(owner);
  const old = sql`locked_at < now() - ${owner.renewAfterMs}::float8 * interval '1 millisecond'`;
  return sql`
    renewed as (update idempotency_keys set locked_at = now() where ${mine} and ${old} returning id),
    kept as (select id from idempotency_keys where ${mine} and not (${old}) for update),
    owner as (select id from renewed union all select id from kept)`;
}
