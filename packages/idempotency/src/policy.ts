import type { ClaimResult } from "./types";

/**
 * How the conflicts of a claim are answered over HTTP. Specifications differ
 * on "the same key with another body" (Stripe answers 400, the IETF draft
 * 422, some agentic-commerce specs 409), so its status is a choice.
 */
export interface ConflictPolicy {
  /** A duplicate of a request still running: default 409, with `Retry-After`. */
  inProgressStatus: number;
  /** The same key with a changed body: default 422. */
  mismatchStatus: number;
}

export const DEFAULT_CONFLICT_POLICY: ConflictPolicy = { inProgressStatus: 409, mismatchStatus: 422 };

/** The error codes of the conflict bodies (`{ "error": { "code", "message" } }`). */
export const CONFLICT_CODES = {
  in_progress: "in_progress",
  mismatch: "idempotency_key_reuse",
  missing: "idempotency_key_missing",
  malformed: "idempotency_key_invalid",
} as const;

/** The HTTP answer of a conflict, or null for a claim that is not one. */
export function conflictAnswer(
  claim: ClaimResult,
  policy: ConflictPolicy = DEFAULT_CONFLICT_POLICY,
): { status: number; code: string; message: string; retryAfterSeconds?: number } | null {
  if (claim.kind === "in_progress")
    return {
      status: policy.inProgressStatus,
      code: CONFLICT_CODES.in_progress,
      message: "A request with this Idempotency-Key is still being processed. Ask again shortly with the same key.",
      retryAfterSeconds: claim.retryAfterSeconds,
    };
  if (claim.kind === "mismatch")
    return {
      status: policy.mismatchStatus,
      code: CONFLICT_CODES.mismatch,
      message: "This Idempotency-Key was already used with a different request. Use a new key for a new request.",
    };
  return null;
}
