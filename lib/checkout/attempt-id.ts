import { deriveId, type KeyScope } from "@checkout/idempotency";

/**
 * The id of one checkout attempt — and of its order — derived from what the
 * attempt is: the authenticated customer, the endpoint and the client's key,
 * never a random id of a row the shop could lose. Every downstream
 * idempotency key and the PaymentIntent's metadata follow from it, so after
 * the shop lost an attempt's rows (a failover to an asynchronous replica, a
 * restore from backup) the shopper's retry sends Stripe the very same
 * request and gets the first PaymentIntent back. A UUID (version 8, SHA-256).
 */
export function attemptId(scope: KeyScope): string {
  return deriveId("checkout-attempt", scope);
}
