import { RequestFailure } from "@checkout/idempotency/client";

/**
 * Why one checkout request did not produce an outcome: the package's
 * RequestFailure, thrown so the retry policy can look at it; outcomes the
 * shopper must see (paid, declined) are return values, never thrown.
 */
export {
  RequestFailure as CheckoutFailure,
  isRetryable,
  parseRetryAfter,
  type FailureReason,
} from "@checkout/idempotency/client";

/** Not sent: the session is not the one the attempt was begun under. */
export function sessionChanged(): RequestFailure {
  return new RequestFailure(
    { kind: "not_sent", detail: "the session is not the one this attempt was begun under" },
    "Your session changed during this payment.",
  );
}
