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
 * still `in_progress` but owned by nobody.
 */
export type ClaimResult =
  | { kind: "claimed"; owner: Ownership }
  | { kind: "replay"; status: IdempotencyStatus; response: StoredResponse }
  | { kind: "in_progress"; retryAfterSeconds: number }
  | { kind: "mismatch" }
  | { kind: "refused"; rule: AdmissionRule; retryAfterSeconds: number };

/** Why a fresh key was not admitted (docs/decisions/0013-the-gate-in-the-claim.md). */
export type AdmissionRule =
  | "open_attempts"
  | "checkout_per_address"
  | "checkout_per_session"
  | "too_many_declines"
  | "provider_budget"
  | "provider_busy";

/**
 * The limits a fresh key must pass, checked by the claim's own statement: a
 * key the subject already has is never limited. `admit: false` (a bucket
 * this process already saw spent) only reads: a known key is answered, a
 * fresh one refused as `blockedBy`, nothing written.
 */
export interface Admission {
  address: string;
  perAddress: number;
  perSession: number;
  maxOpenAttempts: number;
  windowSeconds: number;
  /** Declined payments allowed per session, per address and per card in `declineWindowSeconds`. */
  declinesPerSession: number;
  declinesPerAddress: number;
  declinesPerCard: number;
  declineWindowSeconds: number;
  /** The fingerprint of the card the fresh key would pay with; null or absent: not counted per card. */
  card?: string | null;
  admit: true | { blockedBy: AdmissionRule; retryAfterSeconds: number };
  /**
   * Whether a known key whose attempt must ask the provider again (a retake
   * after an unknown outcome) may: it spends the provider budget like a fresh
   * key. Absent: it may.
   */
  retake?: true | { blockedBy: AdmissionRule; retryAfterSeconds: number };
}

/** An unfinished record nobody is working on, as the reconciler sees it. */
export interface AbandonedRecord {
  recordId: string;
  subjectId: string;
  key: string;
  lockToken: string | null;
  /** It waits for the shopper (a stored 202) and its action timeout has passed. */
  parked: boolean;
}
