/** What the engine stores for a finished request, and replays verbatim. */
export interface StoredResponse {
  statusCode: number;
  body: unknown;
  headers: Record<string, string>;
}

export type IdempotencyStatus = "in_progress" | "completed" | "failed";

/** The scope of a key: one subject, one operation (docs/contract.md §3). */
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
}

export type ClaimResult =
  | { kind: "claimed"; owner: Ownership }
  | { kind: "replay"; status: "completed" | "failed"; response: StoredResponse }
  | { kind: "in_progress"; retryAfterSeconds: number }
  | { kind: "mismatch" };
