/**
 * The attempts this process is running, so that a duplicate of one is
 * answered without asking the database — only while the database's answer
 * is known: the owner holds its claim (it has not started a write that ends
 * or gives it up) and its lease cannot have run out by the database's clock.
 * The lease runs from the database's `now()` when the claim's statement ran,
 * which is after the moment this process sent it; counting from that moment,
 * on both the monotonic and the wall clock (the larger), overstates the
 * lease's age, never understates it. A renewal is not followed (a write
 * through `heldBy` renews only a lock older than `renewAfterMs`): past its
 * first lease an attempt's duplicates go to the database again. See the
 * README's guarantees.
 */
import type { KeyScope, Ownership } from "./types";

/** How much earlier than the lease's end the process stops answering from memory: clock rates, scheduling. */
export const IN_FLIGHT_MARGIN_MS = 1_000;

interface Entry {
  scopes: Map<string, Entry>;
  scopeKey: string;
  key: string;
  recordId: string;
  lockToken: string;
  requestHash: string;
  /** When the statement that set the lease was sent: performance.now() and Date.now(). */
  sentAt: number;
  sentAtWall: number;
}

/** A moment before a statement that sets a lease is sent. */
export interface SentAt {
  monotonic: number;
  wall: number;
}

export const sentNow = (): SentAt => ({ monotonic: performance.now(), wall: Date.now() });

interface Registry {
  /** Per database handle: engines on one handle share what they run; another database never sees it. */
  byDatabase: WeakMap<object, Map<string, Entry>>;
  /** Every entry by its record, so an owner's end is heard whichever engine object writes it. */
  byRecord: Map<string, Entry>;
  /** How many entries hold each endpoint and key, whoever's: what the front door asks before anything else. */
  byKey: Map<string, number>;
}

// On globalThis: a bundler may load this module more than once in one process.
const global = globalThis as unknown as { [key: symbol]: Registry | undefined };
const KEY = Symbol.for("@checkout/idempotency/in-flight");

function registry(): Registry {
  global[KEY] ??= { byDatabase: new WeakMap(), byRecord: new Map(), byKey: new Map() };
  return global[KEY];
}

const keyOf = (endpoint: string, key: string) => `${endpoint}\u0000${key}`;
const scopeKeyOf = (scope: KeyScope) => `${scope.subjectId}\u0000${keyOf(scope.endpoint, scope.key)}`;

/** Records `owner`'s claim of `scope`, whose lease was set by a statement sent at `sent`. */
export function began(database: object, scope: KeyScope, owner: Ownership, requestHash: string, sent: SentAt): void {
  const { byDatabase, byRecord, byKey } = registry();
  let scopes = byDatabase.get(database);
  if (!scopes) byDatabase.set(database, (scopes = new Map()));
  const entry: Entry = {
    scopes,
    scopeKey: scopeKeyOf(scope),
    key: keyOf(scope.endpoint, scope.key),
    recordId: owner.recordId,
    lockToken: owner.lockToken,
    requestHash,
    sentAt: sent.monotonic,
    sentAtWall: sent.wall,
  };
  // A retake by this process, or a new record for the scope: one entry each.
  ended(entry.recordId);
  const replaced = scopes.get(entry.scopeKey);
  if (replaced) ended(replaced.recordId);
  scopes.set(entry.scopeKey, entry);
  byRecord.set(entry.recordId, entry);
  byKey.set(entry.key, (byKey.get(entry.key) ?? 0) + 1);
}

/**
 * The record's owner is about to write its end (an outcome, a release, a
 * wait, a delete), or the record was just taken over: from now on the
 * database answers. Any owner of the record ends its entry — an older one,
 * fenced out, only sends duplicates to the database sooner.
 */
export function ended(recordId: string): void {
  const { byRecord, byKey } = registry();
  const entry = byRecord.get(recordId);
  if (!entry) return;
  byRecord.delete(recordId);
  if (entry.scopes.get(entry.scopeKey) === entry) entry.scopes.delete(entry.scopeKey);
  const holders = (byKey.get(entry.key) ?? 1) - 1;
  if (holders > 0) byKey.set(entry.key, holders);
  else byKey.delete(entry.key);
}

/**
 * Whether an attempt of `endpoint` under `key` (normalised) runs in this
 * process, for any subject: a hint only, for routing a request before its
 * subject is known; the claim's own check still decides.
 */
export function keyInFlight(endpoint: string, key: string): boolean {
  return registry().byKey.has(keyOf(endpoint, key));
}

/**
 * What the database would answer a claim of `scope` with fingerprint
 * `requestHash`, when an owner in this process holds it with a lease of
 * `ttlMs` that cannot have ended: `in_progress` for the same body,
 * `mismatch` for another. Null: ask the database.
 */
export function answerInFlight(
  database: object,
  scope: KeyScope,
  requestHash: string,
  ttlMs: number,
  retryAfterSeconds: number,
): { kind: "in_progress"; retryAfterSeconds: number } | { kind: "mismatch" } | null {
  const scopes = registry().byDatabase.get(database);
  const entry = scopes?.get(scopeKeyOf(scope));
  if (!entry) return null;
  const age = Math.max(performance.now() - entry.sentAt, Date.now() - entry.sentAtWall);
  if (age >= ttlMs - IN_FLIGHT_MARGIN_MS) {
    // The lease may have ended: the database decides (a retake, or the owner's answer).
    ended(entry.recordId);
    return null;
  }
  return entry.requestHash === requestHash ? { kind: "in_progress", retryAfterSeconds } : { kind: "mismatch" };
}
