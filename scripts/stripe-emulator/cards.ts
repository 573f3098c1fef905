/**
 * Stripe's test payment methods (docs.stripe.com/testing), by what they do.
 * Any other `pm_…` is unknown: Stripe answers it with `resource_missing`, so
 * the emulator does too, rather than charging a made-up card.
 */
export interface Decline {
  code: "card_declined";
  declineCode: string;
  message: string;
}

export type Card =
  | { kind: "succeeds" }
  | { kind: "declines"; decline: Decline }
  /** Needs 3-D Secure; `afterAuthentication` is what the charge does once the shopper completes it. */
  | { kind: "authenticates"; afterAuthentication: Decline | null };

const SUCCEEDING = [
  "pm_card_visa",
  "pm_card_visa_debit",
  "pm_card_mastercard",
  "pm_card_mastercard_debit",
  "pm_card_mastercard_prepaid",
  "pm_card_amex",
  "pm_card_discover",
  "pm_card_diners",
  "pm_card_jcb",
  "pm_card_unionpay",
  "pm_card_us",
  "pm_card_gb",
  "pm_card_de",
  "pm_card_fr",
];

const GENERIC: Decline = { code: "card_declined", declineCode: "generic_decline", message: "Your card was declined." };

const DECLINES: Record<string, Decline> = {
  pm_card_chargeDeclined: GENERIC,
  pm_card_chargeDeclinedInsufficientFunds: {
    code: "card_declined",
    declineCode: "insufficient_funds",
    message: "Your card has insufficient funds.",
  },
  pm_card_chargeDeclinedFraudulent: { ...GENERIC, declineCode: "fraudulent" },
  pm_card_chargeDeclinedLostCard: { ...GENERIC, declineCode: "lost_card" },
};

const AUTHENTICATING: Record<string, Decline | null> = {
  pm_card_threeDSecure2Required: null,
  pm_card_authenticationRequired: null,
  pm_card_threeDSecureRequiredChargeDeclined: GENERIC,
};

export function cardFor(paymentMethod: string): Card | null {
  if (SUCCEEDING.includes(paymentMethod)) return { kind: "succeeds" };
  if (Object.hasOwn(DECLINES, paymentMethod)) return { kind: "declines", decline: DECLINES[paymentMethod] ?? GENERIC };
  if (Object.hasOwn(AUTHENTICATING, paymentMethod))
    return { kind: "authenticates", afterAuthentication: AUTHENTICATING[paymentMethod] ?? null };
  return null;
}
