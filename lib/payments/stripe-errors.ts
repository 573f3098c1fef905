import type Stripe from "stripe";

/**
 * Stripe's errors told apart by their `type`, never by `instanceof`: Next.js
 * bundles the SDK into each server bundle, so the client the maintenance timer
 * built (instrumentation bundle) throws errors whose classes are not the ones
 * a route's bundle imports. Every StripeError carries its class name as `type`.
 */
interface StripeErrorTypes {
  StripeError: Stripe.errors.StripeError;
  StripeCardError: Stripe.errors.StripeCardError;
  StripeInvalidRequestError: Stripe.errors.StripeInvalidRequestError;
}

export function isStripeError<K extends keyof StripeErrorTypes = "StripeError">(
  err: unknown,
  type?: K,
): err is StripeErrorTypes[K] {
  if (typeof err !== "object" || err === null) return false;
  const actual = (err as { type?: unknown }).type;
  return typeof actual === "string" && actual.startsWith("Stripe") && (type === undefined || actual === type);
}
