import { createHash } from "node:crypto";

/**
 * SEPA Direct Debit with Stripe's test IBANs (docs.stripe.com/payments/sepa-debit/accept-a-payment,
 * "Test your integration"): a debit is `processing` once confirmed and Stripe decides it later,
 * `succeeded` or back to `requires_payment_method`. The emulator keeps the test payment method
 * a PaymentMethod stands for as `sepa_debit:<IBAN>` (see PaymentMethods in ledger.ts).
 */
export interface SepaOutcome {
  becomes: "succeeded" | "failed";
  /** Seconds on the emulator's clock from confirmation to Stripe's answer. */
  afterSeconds: number;
}

/**
 * "Shortly" for the test IBANs that settle without a stated delay: long enough that a test
 * sees `processing` before it advances the clock (POST /_emulator/clock), as a shopper would.
 */
export const SETTLES_SHORTLY_SECONDS = 60;
/** "After at least three minutes", as Stripe's testing table says. */
const THREE_MINUTES = 180;

const TEST_IBANS: Record<string, SepaOutcome> = {
  DE89370400440532013000: { becomes: "succeeded", afterSeconds: SETTLES_SHORTLY_SECONDS },
  DE62370400440532013001: { becomes: "failed", afterSeconds: SETTLES_SHORTLY_SECONDS },
  // Succeeds; Stripe then opens a dispute, which the emulator does not model.
  DE35370400440532013002: { becomes: "succeeded", afterSeconds: SETTLES_SHORTLY_SECONDS },
  DE65370400440532013003: { becomes: "succeeded", afterSeconds: THREE_MINUTES },
  DE27370400440532013004: { becomes: "failed", afterSeconds: THREE_MINUTES },
};

const PREFIX = "sepa_debit:";

export function normalizedIban(iban: string): string {
  return iban.replace(/\s/g, "").toUpperCase();
}

/** The emulator's test payment method for a test IBAN, or null when Stripe's test table does not list it. */
export function sepaTokenFor(iban: string): string | null {
  const normal = normalizedIban(iban);
  return TEST_IBANS[normal] ? `${PREFIX}${normal}` : null;
}

export function isSepaToken(token: string): boolean {
  return token.startsWith(PREFIX) && TEST_IBANS[token.slice(PREFIX.length)] !== undefined;
}

export function sepaOutcomeOf(token: string): SepaOutcome | null {
  return token.startsWith(PREFIX) ? (TEST_IBANS[token.slice(PREFIX.length)] ?? null) : null;
}

/** The PaymentMethod's `sepa_debit`, as stripe-node types it. */
export interface SepaDebitFacts {
  bank_code: string;
  branch_code: string;
  country: string;
  fingerprint: string;
  generated_from: null;
  last4: string;
}

export function sepaFactsOf(token: string): SepaDebitFacts {
  const iban = token.slice(PREFIX.length);
  return {
    bank_code: iban.slice(4, 12),
    branch_code: "",
    country: iban.slice(0, 2),
    fingerprint: createHash("sha256").update(iban).digest("base64url").slice(0, 16),
    generated_from: null,
    last4: iban.slice(-4),
  };
}

/** Stripe's error for an IBAN outside its test table, in test mode. Assumed wording; the code is Stripe's. */
export const UNKNOWN_TEST_IBAN =
  "The IBAN you provided is not one of Stripe's SEPA Direct Debit test IBANs (for example DE89370400440532013000).";
