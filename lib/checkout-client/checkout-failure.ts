/**
 * Why one checkout request did not produce an outcome. Thrown by the payment
 * client so TanStack Query's retry policy can look at it; outcomes the
 * shopper must see (paid, declined) are return values, never thrown.
 */
export type FailureReason =
  | { kind: "network"; detail: string }
  /** Not sent: the session is not the one the attempt was begun under. */
  | { kind: "session"; detail: string }
  | { kind: "http"; status: number; code: string; retryAfterMs: number | undefined };

export class CheckoutFailure extends Error {
  override name = "CheckoutFailure";

  constructor(
    readonly reason: FailureReason,
    message: string,
  ) {
    super(message);
  }

  static network(cause: unknown): CheckoutFailure {
    const detail = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    return new CheckoutFailure({ kind: "network", detail }, "The connection to the shop was lost.");
  }

  static sessionChanged(): CheckoutFailure {
    return new CheckoutFailure(
      { kind: "session", detail: "the session is not the one this attempt was begun under" },
      "Your session changed during this payment.",
    );
  }

  get status(): number | undefined {
    return this.reason.kind === "http" ? this.reason.status : undefined;
  }

  get retryAfterMs(): number | undefined {
    return this.reason.kind === "http" ? this.reason.retryAfterMs : undefined;
  }
}

// 409: the same attempt is still running; 503: the provider failed transiently
// and the key stays retakeable; 429: the shop's abuse limits refused it before
// storing anything (like 503, honouring Retry-After); 502/504: a proxy lost
// the connection, the same situation as a network error. Retrying any of them
// with the same key is safe.
const RETRYABLE_STATUSES = new Set([409, 429, 502, 503, 504]);

/**
 * Worth retrying with the same key. 400/401/402/403/422 never are: the answer
 * would not change. Nor is a changed session: the key is not this session's.
 */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof CheckoutFailure)) return false;
  const { reason } = error;
  return reason.kind === "network" || (reason.kind === "http" && RETRYABLE_STATUSES.has(reason.status));
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
