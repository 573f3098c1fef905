import { createHash } from "node:crypto";

/**
 * Stripe's test card numbers (docs.stripe.com/testing), each mapped to the
 * test payment method that behaves the same way, so a card typed into the
 * Payment Element charges, declines or asks for 3-D Secure exactly as its
 * `pm_card_*` token does. Any other number that passes the checks is a real
 * card, which test mode refuses.
 */
const NUMBERS: Record<string, string> = {
  "4242424242424242": "pm_card_visa",
  "4000056655665556": "pm_card_visa_debit",
  "5555555555554444": "pm_card_mastercard",
  "378282246310005": "pm_card_amex",
  "6011111111111117": "pm_card_discover",
  "4000000000000002": "pm_card_chargeDeclined",
  "4000000000009995": "pm_card_chargeDeclinedInsufficientFunds",
  "4000000000009987": "pm_card_chargeDeclinedLostCard",
  "4000000000009979": "pm_card_chargeDeclinedStolenCard",
  "4000000000000069": "pm_card_chargeDeclinedExpiredCard",
  "4000000000000127": "pm_card_chargeDeclinedIncorrectCvc",
  "4000000000000119": "pm_card_chargeDeclinedProcessingError",
  "4000000000006975": "pm_card_chargeDeclinedVelocityLimitExceeded",
  "4100000000000019": "pm_card_radarBlock",
  "4000002500003155": "pm_card_authenticationRequiredOnSetup",
  "4000002760003184": "pm_card_authenticationRequired",
  "4000000000003220": "pm_card_threeDSecure2Required",
  "4000000000003063": "pm_card_threeDSecureRequired",
  "4000008400001629": "pm_card_threeDSecureRequiredChargeDeclined",
  "4000000000005126": "pm_card_refundFail",
};

export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

/** A refusal as Stripe words it for a card it cannot tokenize: a `card_error` with this code. */
export interface CardRefusal {
  code: string;
  message: string;
  param: string;
}

/** The test payment method a typed card stands for, or why the card is refused. */
export function testTokenFor(card: CardDetails, now = new Date()): { token: string } | { refused: CardRefusal } {
  const problem = cardProblem(
    card.number,
    card.expMonth,
    card.expYear,
    card.cvc,
    now.getFullYear(),
    now.getMonth() + 1,
  );
  if (problem) return { refused: problem };
  const token = NUMBERS[card.number];
  if (!token) {
    return {
      refused: {
        code: "card_declined",
        message: "Your card was declined. Your request was in test mode, but used a non test (live) card.",
        param: "payment_method_data[card][number]",
      },
    };
  }
  return { token };
}

/** The typed numbers the emulator knows, for tests and the README. */
export function knownCardNumbers(): Record<string, string> {
  return { ...NUMBERS };
}

/** A card as a PaymentMethod or a ConfirmationToken describes it. */
export interface CardFacts {
  brand: string;
  last4: string;
  /** The same for every use of one card number, as Stripe's is within an account; differs between numbers. */
  fingerprint: string;
}

/**
 * The card a test payment method stands for. Typed numbers map to test
 * payment methods one to one, so the number (or, for a test payment method
 * no number stands for, its name) decides the fingerprint: the same card
 * typed twice, or its `pm_card_*` token, has one fingerprint.
 */
export function cardFactsOf(testToken: string): CardFacts {
  const number = Object.entries(NUMBERS).find(([, token]) => token === testToken)?.[0];
  return {
    brand: number ? brandOf(number) : brandOfToken(testToken),
    last4: number ? number.slice(-4) : "4242",
    fingerprint: fingerprintOf(number ?? testToken),
  };
}

/** Sixteen letters and digits, as Stripe's fingerprints look, derived from the card number alone. */
export function fingerprintOf(card: string): string {
  return createHash("sha256")
    .update(`card fingerprint ${card}`)
    .digest("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 16);
}

function brandOfToken(testToken: string): string {
  for (const brand of ["mastercard", "amex", "discover", "diners", "jcb", "unionpay"])
    if (testToken.includes(brand)) return brand;
  return "visa";
}

/** Visa, Mastercard, American Express or Discover, as the element shows and Stripe reports it. */
export function brandOf(number: string): string {
  if (/^3[47]/.test(number)) return "amex";
  if (/^(5[1-5]|2[2-7])/.test(number)) return "mastercard";
  if (/^6(011|5)/.test(number)) return "discover";
  if (/^4/.test(number)) return "visa";
  return "unknown";
}

// The checks below run twice: in the element's iframe, as the shopper types
// (their source is served to it, see stripe-js.ts), and at
// `POST /v1/confirmation_tokens`, as Stripe re-checks what the element sends.
// So they are self-contained functions of plain values, with Stripe's codes
// and messages.

/** Null when the card would be tokenized; else the first problem, in the order the element reports them. */
export function cardProblem(
  number: string,
  expMonth: number,
  expYear: number,
  cvc: string,
  currentYear: number,
  currentMonth: number,
): CardRefusal | null {
  const digits = /^\d{12,19}$/.test(number) ? number : "";
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  if (!digits || sum % 10 !== 0)
    return { code: "incorrect_number", message: "Your card number is invalid.", param: "number" };
  if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12)
    return { code: "invalid_expiry_month", message: "Your card's expiration month is invalid.", param: "exp_month" };
  if (!Number.isInteger(expYear) || expYear < currentYear)
    return { code: "invalid_expiry_year", message: "Your card's expiration year is in the past.", param: "exp_year" };
  if (expYear === currentYear && expMonth < currentMonth)
    return { code: "invalid_expiry_month", message: "Your card's expiration date is in the past.", param: "exp_month" };
  const cvcLength = /^3[47]/.test(number) ? 4 : 3;
  if (!new RegExp(`^\\d{${cvcLength}}$`).test(cvc))
    return { code: "invalid_cvc", message: "Your card's security code is invalid.", param: "cvc" };
  return null;
}
