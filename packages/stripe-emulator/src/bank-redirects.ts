/**
 * Bank redirects: iDEAL and Bancontact (docs.stripe.com/payments/ideal,
 * /payments/bancontact). Confirming answers `requires_action` with a
 * `redirect_to_url` next action; the shopper authorizes or fails the payment
 * on their bank's page (in test mode, Stripe's test page: "Authorize test
 * payment" or "Fail test payment") and is sent to `return_url`. Stripe learns
 * the answer at once: the intent is `succeeded` (or back to
 * `requires_payment_method`) whether or not the shopper ever comes back.
 * Nothing about the payment method decides the outcome; the shopper's choice does.
 */
export const BANK_REDIRECT_TYPES = ["ideal", "bancontact"] as const;
export type BankRedirectType = (typeof BANK_REDIRECT_TYPES)[number];

const PREFIX = "bank_redirect:";

export function isBankRedirectType(value: unknown): value is BankRedirectType {
  return typeof value === "string" && (BANK_REDIRECT_TYPES as readonly string[]).includes(value);
}

/** The emulator's test payment method for a bank redirect, as PaymentMethods keeps it. */
export function bankRedirectToken(type: BankRedirectType): string {
  return `${PREFIX}${type}`;
}

export function bankRedirectTypeOf(token: string): BankRedirectType | null {
  const type = token.startsWith(PREFIX) ? token.slice(PREFIX.length) : null;
  return isBankRedirectType(type) ? type : null;
}

/** The PaymentMethod's own hash, as stripe-node 23 types it: `ideal: { bank, bic }`, `bancontact: {}`. */
export type BankRedirectFacts =
  | { type: "ideal"; ideal: { bank: string | null; bic: string | null } }
  | { type: "bancontact"; bancontact: Record<string, never> };

export function bankRedirectFacts(type: BankRedirectType): BankRedirectFacts {
  return type === "ideal" ? { type, ideal: { bank: null, bic: null } } : { type, bancontact: {} };
}

/** Assumed wording: Stripe refuses to confirm a redirect method without somewhere to send the shopper back. */
export const RETURN_URL_REQUIRED =
  "A return_url is required to confirm a PaymentIntent with a payment method that redirects the customer (ideal, bancontact).";

/** Stripe's error when the shopper fails the payment at their bank (code as for a failed authentication). */
export const BANK_FAILURE =
  "The customer did not approve the payment at their bank. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.";
