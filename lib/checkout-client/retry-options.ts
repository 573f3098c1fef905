import { nextRetryDelay } from "./backoff-policy";
import { type CheckoutFailure, isRetryable } from "./checkout-failure";

/**
 * The checkout mutation's `retry` and `retryDelay`, both driven by the one
 * policy in backoff-policy.ts. TanStack Query asks both about every failure;
 * the decision is made once per failure, so the jittered wait that was
 * checked against the budget is the wait that is slept.
 */
export function checkoutRetryOptions(elapsedMs: () => number, random: () => number = Math.random) {
  const decisions = new WeakMap<CheckoutFailure, number | null>();
  const decide = (failureCount: number, error: unknown): number | null => {
    if (!isRetryable(error)) return null;
    const failure = error as CheckoutFailure;
    if (!decisions.has(failure)) {
      const retryAfterMs = failure.retryAfterMs;
      decisions.set(failure, nextRetryDelay({ retry: failureCount + 1, elapsedMs: elapsedMs(), retryAfterMs, random }));
    }
    return decisions.get(failure) ?? null;
  };
  return {
    retry: (failureCount: number, error: unknown) => decide(failureCount, error) !== null,
    retryDelay: (failureCount: number, error: unknown) => decide(failureCount, error) ?? 0,
  };
}
