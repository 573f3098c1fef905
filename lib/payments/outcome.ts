import type Stripe from "stripe";
import { isStripeError } from "./stripe-errors";

/**
 * What a payment came to, as Stripe tells it: read from a PaymentIntent's
 * state, or from the error a provider call answered. The one place where
 * Stripe's statuses and error types become the shop's outcomes.
 */
export type PaymentOutcome =
  /** Charged: `amountCents` and `currency` are what the intent charged; `card`, the card that paid when the answer names it. */
  | { kind: "succeeded"; paymentIntentId: string; amountCents: number; currency: string; card?: CardFacts | null }
  /** The bank said no: `402 card_declined`. `card`: the declined card's fingerprint, as Stripe names it. */
  | { kind: "declined"; paymentIntentId: string | null; declineCode: string; message: string; card: string | null }
  /**
   * Nothing was charged and nothing will be: `402` with `error`. `card`: for a
   * failed authentication, the card's fingerprint (the card-testing brake
   * counts it). `unknownCredential`: the payment method or confirmation token
   * sent does not exist (counted too).
   */
  | {
      kind: "failed";
      paymentIntentId: string | null;
      error: FailureError;
      code: string;
      message: string;
      card?: string | null;
      unknownCredential?: true;
    }
  /** Stripe accepted the payment and decides it later (SEPA Direct Debit): the order, not the attempt, waits. */
  | { kind: "processing"; paymentIntentId: string }
  /** The shopper must authenticate (3-D Secure); the attempt waits for them. */
  | { kind: "requires_action"; paymentIntentId: string; action: NextAction }
  /** `providerBusy`: Stripe answered 429 (its rate limit): the shop sheds fresh attempts for a while. */
  | { kind: "unknown"; paymentIntentId: string | null; reason: string; providerBusy?: true }
  /** The owner lost its claim before a provider call: it must not go on. */
  | { kind: "fenced" };

/**
 * How the shopper authenticates: at `url` (a redirect, and back to the return
 * page), or in the checkout page through Stripe.js (`handleNextAction`) with
 * the intent's client secret, which is why the secret is in the answer and
 * must never be logged (see loggable).
 */
export type NextAction = { type: "redirect"; url: string } | { type: "use_stripe_sdk"; clientSecret: string };

/** An outcome as it may be logged: without the client secret a next action carries. */
export function loggable(outcome: PaymentOutcome): Record<string, unknown> {
  if (outcome.kind !== "requires_action") return { ...outcome };
  return { kind: outcome.kind, paymentIntentId: outcome.paymentIntentId, action: outcome.action.type };
}

export type FailureError = "payment_failed" | "authentication_failed" | "authentication_abandoned";

/** The outcomes that end an attempt for good. */
export type FinalOutcome = Extract<PaymentOutcome, { kind: "succeeded" | "declined" | "failed" }>;

/** Past the deadline with nothing that succeeded: a stored failure, nothing charged. */
export function attemptExpired(paymentIntentId: string | null): Extract<PaymentOutcome, { kind: "failed" }> {
  return failed(
    paymentIntentId,
    "payment_failed",
    "attempt_expired",
    "This payment attempt expired before it could be completed; nothing was charged.",
  );
}

export function failed(
  paymentIntentId: string | null,
  error: FailureError,
  code: string,
  message: string,
): Extract<PaymentOutcome, { kind: "failed" }> {
  return { kind: "failed", paymentIntentId, error, code, message };
}

/**
 * The card a payment used, as the shopper knows it: Stripe's brand name
 * (`visa`, `mastercard`, …) and its last four digits.
 */
export interface CardFacts {
  brand: string;
  last4: string;
}

/** What the shop's calls that return an attempt's intent ask for, so the card comes back in the same answer. */
export const EXPAND_CARD = { expand: ["payment_method"] };

/**
 * The card an intent paid with, read from its PaymentMethod when the answer
 * carries the object (the shop asks for it with `expand: ["payment_method"]`
 * on the calls that charge, so learning it costs no call of its own); null
 * when the answer names the PaymentMethod by id only (a webhook's intent).
 */
export function cardOf(intent: Stripe.PaymentIntent): CardFacts | null {
  const method = intent.payment_method;
  const card = typeof method === "object" && method !== null ? method.card : null;
  return card?.brand && card.last4 ? { brand: card.brand, last4: card.last4 } : null;
}

export function outcomeOf(intent: Stripe.PaymentIntent): PaymentOutcome {
  if (intent.status === "succeeded") {
    return {
      kind: "succeeded",
      paymentIntentId: intent.id,
      amountCents: intent.amount,
      currency: intent.currency,
      card: cardOf(intent),
    };
  }
  if (intent.status === "processing") return { kind: "processing", paymentIntentId: intent.id };
  const redirect = intent.next_action?.redirect_to_url?.url;
  if (intent.status === "requires_action" && redirect)
    return { kind: "requires_action", paymentIntentId: intent.id, action: { type: "redirect", url: redirect } };
  // Confirmed with a token Stripe.js made: Stripe.js completes the action in the page.
  if (intent.status === "requires_action" && intent.next_action?.type === "use_stripe_sdk" && intent.client_secret) {
    return {
      kind: "requires_action",
      paymentIntentId: intent.id,
      action: { type: "use_stripe_sdk", clientSecret: intent.client_secret },
    };
  }
  if (intent.status === "canceled") {
    return failed(intent.id, "payment_failed", "canceled", "This payment was cancelled; nothing was charged.");
  }
  const error = intent.last_payment_error;
  if (intent.status === "requires_payment_method" && error) {
    if (error.code === "payment_intent_authentication_failure") {
      return {
        ...failed(intent.id, "authentication_failed", error.code, error.message ?? "The card's authentication failed."),
        card: fingerprintOf(error.payment_method),
      };
    }
    if (error.type === "card_error") {
      return {
        kind: "declined",
        paymentIntentId: intent.id,
        declineCode: error.decline_code ?? error.code ?? "card_declined",
        message: error.message ?? "Your card was declined.",
        card: fingerprintOf(error.payment_method),
      };
    }
    return failed(intent.id, "payment_failed", error.code ?? "payment_failed", error.message ?? "The payment failed.");
  }
  return { kind: "unknown", paymentIntentId: intent.id, reason: `PaymentIntent is ${intent.status}` };
}

/**
 * A card error is a decline; an invalid request about the payment itself
 * (unknown or unusable payment method, amount rules) at a create or confirm
 * means nothing was charged: a failure to record, not to retry forever.
 * Timeouts, dropped connections, 5xx, 429, idempotency errors, and any error
 * while only reading: the charge may or may not have happened. Never guess;
 * the next try asks Stripe about the attempt's PaymentIntent itself.
 */
export function outcomeOfError(err: unknown, paymentIntentId: string | null, stage: "write" | "read"): PaymentOutcome {
  if (isStripeError(err, "StripeCardError")) {
    return {
      kind: "declined",
      paymentIntentId: paymentIntentId ?? err.payment_intent?.id ?? null,
      declineCode: err.decline_code ?? err.code ?? "card_declined",
      message: err.message,
      card: fingerprintOf(err.payment_method ?? err.payment_intent?.last_payment_error?.payment_method),
    };
  }
  if (stage === "write" && isStripeError(err, "StripeInvalidRequestError") && err.statusCode === 400) {
    const outcome = failed(paymentIntentId, "payment_failed", err.code ?? "invalid_request", err.message);
    return isUnknownCredential(err) ? { ...outcome, unknownCredential: true } : outcome;
  }
  const busy = isStripeError(err) && err.statusCode === 429;
  return { kind: "unknown", paymentIntentId, reason: describe(err), ...(busy ? { providerBusy: true as const } : {}) };
}

/** Stripe's answer to a payment method or confirmation token that does not exist (`No such PaymentMethod: …`). */
function isUnknownCredential(err: Stripe.errors.StripeError): boolean {
  return err.code === "resource_missing" && (err.param === "payment_method" || err.param === "confirmation_token");
}

/** The card's fingerprint on the PaymentMethod a decline names: the same for every use of one card number. */
function fingerprintOf(paymentMethod: Stripe.PaymentMethod | null | undefined): string | null {
  return paymentMethod?.card?.fingerprint ?? null;
}

function describe(err: unknown): string {
  if (isStripeError(err)) return `${err.type} ${err.statusCode ?? ""} ${err.message}`.trim();
  return err instanceof Error ? err.message : String(err);
}
