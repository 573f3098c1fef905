import { raw, sql, type Sql } from "./sql";

/** Why a gate kept a key out, and when to ask again. */
export interface Refusal<Rule extends string = string> {
  rule: Rule;
  retryAfterSeconds: number;
}

/**
 * Admission slotted into the claim's one statement, without the engine
 * knowing what it counts (rate limits, open-attempt caps, a fraud brake…).
 * A key the subject already has is never gated: it is answered as usual.
 *
 * The statement's common table expressions, in order: `existing` (the
 * record already there for the scope: zero or one row, the engine's), then
 * `before`, then `inserted` (the fresh record, inserted only where `admits`
 * is true; the engine's), then `after`. `before` and `after` are WITH
 * clauses (`name as (…), …`); `before` may read `existing`, `after` may read
 * `inserted` (e.g. to count what was admitted). Each piece is built with the
 * `sql` tag: its values become parameters of the one statement.
 */
export interface Gate<Rule extends string = string> {
  before?: Sql;
  /** A boolean expression: the fresh record is inserted only when it is true. */
  admits: Sql;
  /** Columns of `idempotency_keys` the insert also sets (`open_slot`), name → expression. */
  columns?: Readonly<Record<string, Sql>>;
  after?: Sql;
  /**
   * A query giving the refusal of a fresh key, `(rule text, retry_after int)`:
   * one row when `admits` was false, none otherwise. Not consulted for a
   * known key.
   */
  refusal: Sql;
  /** The refusal as the caller names it; default: the row's values as they are. */
  read?: (rule: string, retryAfterSeconds: number) => Refusal<Rule>;
  /**
   * Whether a known key whose owner is gone (a released or abandoned claim)
   * may be retaken now: a retake repeats the effect, so it may cost what a
   * fresh key costs. A refusal says no; absent or null, yes.
   */
  retake?: Refusal<Rule> | null;
}

/** A gate that admits nothing new and writes nothing: a known key is still answered. */
export function closedGate<Rule extends string>(refusal: Refusal<Rule>, retake?: Refusal<Rule> | null): Gate<Rule> {
  return {
    admits: raw("false"),
    refusal: sql`select ${refusal.rule}::text, ${refusal.retryAfterSeconds}::int`,
    read: () => refusal,
    retake: retake ?? null,
  };
}
