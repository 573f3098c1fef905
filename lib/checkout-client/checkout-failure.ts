/**
 * Why one checkout request did not produce an outcome. Thrown by the payment
 * client so TanStack Query's retry policy can look at it; outcomes the
 * shopper must see (paid, declined) are return values, never thrown.
 */
export type FailureReason =
  | { kind: "network"; detail: string }
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

  get status(): number | undefined {
    return this.reason.kind === "http" ? this.reason.status : undefined;
  }

  get retryAfterMs(): number | undefined {
    return this.reason.kind === "http" ? this.reason.retryAfterMs : undefined;
  }
}

// 409: the same attempt is still running; 503: the provider failed transiently
// and the key stays retakeable; 502/504: a proxy lost the connection, the same
// situation as a network error. Retrying any of them with the same key is safe.
const RETRYABLE_STATUSES = new Set([409, 502, 503, 504]);

/** Worth retrying with the same key. 400/401/402/403/422 never are: the answer would not change. */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof CheckoutFailure)) return false;
  return error.reason.kind === "network" || RETRYABLE_STATUSES.has(error.reason.status);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
