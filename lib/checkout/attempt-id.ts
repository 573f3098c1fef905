import { createHash } from "node:crypto";
import type { KeyScope } from "@checkout/idempotency";

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
  const digest = createHash("sha256")
    .update(`checkout-attempt\n${scope.subjectId}\n${scope.endpoint}\n${scope.key.toLowerCase()}`)
    .digest();
  digest[6] = (digest[6]! & 0x0f) | 0x80;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
