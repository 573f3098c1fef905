/**
 * Why one idempotent request produced no answer to act on. Thrown, so a retry
 * policy can look at it; answers the caller must show (success, a refusal it
 * understands) are returned, never thrown.
 */
export type FailureReason =
  | { kind: "network"; detail: string }
  /** Not sent: a check the caller makes before each try failed (see `beforeEachTry`). */
  | { kind: "not_sent"; detail: string }
  | { kind: "http"; status: number; code: string; retryAfterMs: number | undefined };

export class RequestFailure extends Error {
  override name = "RequestFailure";

  constructor(
    readonly reason: FailureReason,
    message: string,
  ) {
    super(message);
  }

  static network(cause: unknown): RequestFailure {
    const detail = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    return new RequestFailure({ kind: "network", detail }, "The connection to the server was lost.");
  }

  get status(): number | undefined {
    return this.reason.kind === "http" ? this.reason.status : undefined;
  }

  get retryAfterMs(): number | undefined {
    return this.reason.kind === "http" ? this.reason.retryAfterMs : undefined;
  }
}

// 409: the same key is still running; 503: the server failed transiently and
// the key stays retakeable; 429: refused before anything was stored (like 503,
// honouring Retry-After); 502/504: a proxy lost the connection, the same
// situation as a network error. Retrying any of them with the same key is safe.
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([409, 429, 502, 503, 504]);

/** Worth retrying with the same key: 400/401/402/403/422 never are, the answer would not change. */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof RequestFailure)) return false;
  const { reason } = error;
  return reason.kind === "network" || (reason.kind === "http" && RETRYABLE_STATUSES.has(reason.status));
}
