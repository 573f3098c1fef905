import { normaliseKey, type KeyScope } from "@checkout/idempotency";
import { attemptId } from "./attempt-id";
import { CHECKOUT_ENDPOINT } from "./request";

/**
 * One checkout attempt: the customer and the client's key, checked once, and
 * what follows from them — the claim's scope and the attempt's id (its
 * order's id, the root of its payment keys). Every path that names an
 * attempt (the shopper's request, its state, the 3-D Secure return, the
 * reconciler, the ownership check) builds it here.
 */
export interface CheckoutAttempt {
  readonly customerId: string;
  /** The Idempotency-Key: a UUID in lower case. */
  readonly key: string;
  readonly scope: KeyScope;
  readonly id: string;
}

/** The attempt of `customerId` under `key`; null when the key is not a UUID. */
export function checkoutAttempt(customerId: string, key: string): CheckoutAttempt | null {
  const normal = normaliseKey(key);
  if (!normal) return null;
  const scope = { subjectId: customerId, endpoint: CHECKOUT_ENDPOINT, key: normal };
  return { customerId, key: normal, scope, id: attemptId(scope) };
}

/** The same, for a key already checked (a stored record's, or one the request was refused without). */
export function knownAttempt(customerId: string, key: string): CheckoutAttempt {
  const attempt = checkoutAttempt(customerId, key);
  if (!attempt) throw new Error(`Not a checkout key: ${key}`);
  return attempt;
}
