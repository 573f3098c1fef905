/**
 * Bounds on every Stripe call. The idempotency layer's in-progress TTL must
 * outlive the worst case of one call (see `worstCaseStripeCallMs`), otherwise a
 * duplicate could retake a claim whose owner is still waiting on Stripe.
 */
export const STRIPE_TIMEOUT_MS = 20_000;
export const STRIPE_MAX_NETWORK_RETRIES = 2;
/** stripe-node sleeps at most 5 s between retries (MAX_NETWORK_RETRY_DELAY_SEC). */
const STRIPE_MAX_RETRY_DELAY_MS = 5_000;

/**
 * Known gap: stripe-node resends a request whose connection closed
 * (ECONNRESET, EPIPE) once even with maxNetworkRetries 0
 * (RequestSender._shouldRetry, stripe-node#1040), so with 0 retries a call
 * can take two attempts, not one. The default (2 retries) is unaffected; a
 * deployment that sets 0 should give the TTL one more timeout. Fencing keeps
 * a retaker and a slow owner from both writing an outcome either way.
 */
export function worstCaseStripeCallMs(timeoutMs = STRIPE_TIMEOUT_MS, retries = STRIPE_MAX_NETWORK_RETRIES): number {
  return (retries + 1) * timeoutMs + retries * STRIPE_MAX_RETRY_DELAY_MS;
}
