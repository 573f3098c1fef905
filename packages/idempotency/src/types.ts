/** What the engine stores for a request, and replays verbatim. */
export interface StoredResponse {
  statusCode: number;
  /** The exact JSON text first sent: a replay is byte-identical. */
  body: string;
  headers: Record<string, string>;
}

export type IdempotencyStatus = "in_progress" | "completed" | "failed";

/** The scope of a key: one subject, one operation (docs/contract.md). */
export interface KeyScope {
  /** The authenticated customer: never taken from the request body. */
  subjectId: string;
  /** Method and route, e.g. `POST /api/checkout`. */
  endpoint: string;
  /** The client's Idempotency-Key, a UUID. */
  key: string;
}

/** Proof of ownership of an in_progress record; every outcome write is fenced by it. */
export interface Ownership {
  recordId: string;
  lockToken: string;
  /** 1 for the first owner, +1 per retake. */
  attempt: number;
  retaken: boolean;
  /** The attempt is older than its deadline: settle it for good, never start anything new. */
  pastDeadline: boolean;
  /**
   * A write of this owner renews its lock once the lock is older than this
   * (the TTL less the longest provider call), so a lock young enough to
   * outlive the next call is only checked and locked, not rewritten.
   */
  renewAfterMs: number;
}

/**
 * `replay` answers with a stored response: a finished record's outcome, or
 * the `202` of an attempt that waits for the shopper (3-D Secure), which is
 * still `in_progress` but owned by nobody. `refused`: a gate (gate.ts) kept a
 * fresh key out, or a retake; `rule` is the gate's own name for why.
 */
export type ClaimResult<Rule extends string = string> =
  | { kind: "claimed"; owner: Ownership }
  | { kind: "replay"; status: IdempotencyStatus; response: StoredResponse }
  | { kind: "in_progress"; retryAfterSeconds: number }
  | { kind: "mismatch" }
  | { kind: "refused"; rule: Rule; retryAfterSeconds: number };

/** An unfinished record nobody is working on, as the reconciler sees it. */
export interface AbandonedRecord {
  recordId: string;
  subjectId: string;
  key: string;
  lockToken: string | null;
  /** It waits for the shopper (a stored 202): due for a look, or its action timeout has passed (`ageMs`). */
  parked: boolean;
  /** Milliseconds since its claim, by the database's clock. */
  ageMs: number;
}
