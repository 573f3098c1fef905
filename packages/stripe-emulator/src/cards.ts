/**
 * Stripe's test payment methods (docs.stripe.com/testing), by what they do.
 * Any other `pm_…` is unknown: Stripe answers it with `resource_missing`, so
 * the emulator does too, rather than charging a made-up card.
 */
export interface Decline {
  /** The error's `code`: `card_declined`, or the reason itself where Stripe reports it so (`expired_card`, …). */
  code: string;
  declineCode: string;
  message: string;
}

/** What a refund of a charge made with the card does after it is created. */
export type RefundBehaviour =
  /** Succeeds at once. */
  | "succeeds"
  /** Created `pending`, later `succeeded` (`pm_card_pendingRefund`). */
  | "pending_then_succeeds"
  /** Created `succeeded`, later `failed` with `expired_or_canceled_card` (`pm_card_refundFail`). */
  | "fails_later";

export type Card =
  | { kind: "succeeds"; refund: RefundBehaviour }
  | { kind: "declines"; decline: Decline; blocked: boolean }
  /** Needs 3-D Secure; `afterAuthentication` is what the charge does once the shopper completes it. */
  | { kind: "authenticates"; afterAuthentication: Decline | null };

/** Succeed by brand, by country, with address or CVC checks that do not block by default, or disputed later. */
const SUCCEEDING = [
  ...["visa", "visa_debit", "mastercard", "mastercard_debit", "mastercard_prepaid", "amex", "discover"],
  ...["diners", "jcb", "unionpay"],
  ...["us", "ar", "br", "ca", "mx", "at", "be", "bg", "by", "hr", "cy", "cz", "dk", "ee", "fi", "fr", "de"],
  ...["gi", "gr", "hu", "ie", "it", "lv", "li", "lt", "lu", "mt", "nl", "no", "pl", "pt", "ro", "si", "sk"],
  ...["es", "se", "ch", "gb", "ae", "au", "cn", "hk", "in", "jp", "my", "nz", "sg", "th", "tw"],
  ...["bypassPending", "bypassPendingInternational", "domesticPricing", "riskLevelElevated"],
  ...["avsFail", "avsLine1Fail", "avsZipFail", "avsUnchecked", "cvcCheckFail"],
  ...["createDispute", "createDisputeProductNotReceived", "createDisputeInquiry"],
  // Supports 3-D Secure without requiring it: Stripe charges it without asking the shopper.
  "threeDSecureOptional",
].map((name) => `pm_card_${name}`);

const REFUNDS: Record<string, RefundBehaviour> = {
  pm_card_pendingRefund: "pending_then_succeeds",
  pm_card_refundFail: "fails_later",
};

const declined = (declineCode: string, message = "Your card was declined."): Decline => ({
  code: "card_declined",
  declineCode,
  message,
});
/** Declines whose error `code` is the reason itself, as the testing page names them ("declined with an expired_card code"). */
const ownCode = (code: string, message: string): Decline => ({ code, declineCode: code, message });

const GENERIC = declined("generic_decline");
const INSUFFICIENT_FUNDS = declined("insufficient_funds", "Your card has insufficient funds.");
const PROCESSING_ERROR = ownCode(
  "processing_error",
  "An error occurred while processing your card. Try again in a little bit.",
);
const VELOCITY = declined(
  "card_velocity_exceeded",
  "Your card was declined for making repeated attempts too frequently or exceeding its amount limit.",
);
/** Radar blocks the payment before it reaches the issuer. */
const BLOCKED = declined("fraudulent");

const DECLINES: Record<string, Decline> = {
  pm_card_chargeDeclined: GENERIC,
  pm_card_visa_chargeDeclined: GENERIC,
  pm_card_chargeCustomerFail: GENERIC,
  pm_card_chargeDeclinedInsufficientFunds: INSUFFICIENT_FUNDS,
  pm_card_visa_chargeDeclinedInsufficientFunds: INSUFFICIENT_FUNDS,
  pm_card_chargeDeclinedLostCard: declined("lost_card"),
  pm_card_visa_chargeDeclinedLostCard: declined("lost_card"),
  pm_card_chargeDeclinedStolenCard: declined("stolen_card"),
  pm_card_visa_chargeDeclinedStolenCard: declined("stolen_card"),
  pm_card_chargeDeclinedFraudulent: declined("fraudulent"),
  pm_card_visa_chargeDeclinedFraudulent: declined("fraudulent"),
  pm_card_chargeDeclinedExpiredCard: ownCode("expired_card", "Your card has expired."),
  pm_card_chargeDeclinedIncorrectCvc: ownCode("incorrect_cvc", "Your card's security code is incorrect."),
  pm_card_chargeDeclinedProcessingError: PROCESSING_ERROR,
  pm_card_visa_chargeDeclinedVelocityLimitExceeded: VELOCITY,
  pm_card_chargeDeclinedVelocityLimitExceeded: VELOCITY,
};

const BLOCKING: readonly string[] = ["pm_card_radarBlock", "pm_card_riskLevelHighest"];

const AUTHENTICATING: Record<string, Decline | null> = {
  pm_card_threeDSecure2Required: null,
  pm_card_threeDSecureRequired: null,
  pm_card_authenticationRequired: null,
  pm_card_authenticationRequiredOnSetup: null,
  pm_card_authenticationRequiredSetupForOffSession: null,
  pm_card_threeDSecureRequiredChargeDeclined: GENERIC,
  pm_card_authenticationRequiredChargeDeclinedInsufficientFunds: INSUFFICIENT_FUNDS,
  pm_card_threeDSecureRequiredProcessingError: PROCESSING_ERROR,
};

export function cardFor(paymentMethod: string): Card | null {
  if (SUCCEEDING.includes(paymentMethod)) return { kind: "succeeds", refund: "succeeds" };
  if (Object.hasOwn(REFUNDS, paymentMethod)) return { kind: "succeeds", refund: REFUNDS[paymentMethod] ?? "succeeds" };
  if (Object.hasOwn(DECLINES, paymentMethod))
    return { kind: "declines", decline: DECLINES[paymentMethod] ?? GENERIC, blocked: false };
  if (BLOCKING.includes(paymentMethod)) return { kind: "declines", decline: BLOCKED, blocked: true };
  if (Object.hasOwn(AUTHENTICATING, paymentMethod))
    return { kind: "authenticates", afterAuthentication: AUTHENTICATING[paymentMethod] ?? null };
  return null;
}

/** Every test payment method the emulator knows, for tests and the README. */
export function knownPaymentMethods(): string[] {
  return [
    ...SUCCEEDING,
    ...Object.keys(REFUNDS),
    ...Object.keys(DECLINES),
    ...BLOCKING,
    ...Object.keys(AUTHENTICATING),
  ];
}
