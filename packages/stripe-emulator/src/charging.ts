import { BANK_FAILURE, RETURN_URL_REQUIRED, bankRedirectTypeOf } from "./bank-redirects";
import { cardFor, type Card, type Decline } from "./cards";
import { emit, emitLater, notExecuted, type Ctx, type Outcome } from "./context";
import { randomId } from "./ids";
import type { PaymentError, PaymentIntent } from "./ledger";
import { invalidRequest, ok, stripeError } from "./responses";
import { sepaOutcomeOf } from "./sepa";
import { unknownPaymentMethod } from "./validation";

// What confirming does to an intent: charge the card, decline it, or stop in
// requires_action for 3-D Secure. Synchronous, like every handler, so two
// confirmations of one intent cannot interleave.

const AUTHENTICATION_FAILURE =
  "The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.";

/** `paymentMethod` is a PaymentMethod the ledger made (`pm_…`); its test token decides what the charge does. */
export function attemptPayment(
  ctx: Ctx,
  intent: PaymentIntent,
  paymentMethod: string,
  returnUrl: string | null,
  /** Confirmed with a ConfirmationToken Stripe.js made: Stripe.js handles the next action, in the page. */
  useStripeSdk = false,
): Outcome {
  const debit = sepaOutcomeOf(ctx.ledger.paymentMethods.tokenOf(paymentMethod) ?? "");
  if (debit) return startDebit(ctx, intent, paymentMethod, debit);
  if (bankRedirectTypeOf(ctx.ledger.paymentMethods.tokenOf(paymentMethod) ?? ""))
    return sendToBank(ctx, intent, paymentMethod, returnUrl);
  const card = cardOf(ctx, paymentMethod);
  if (!card) return notExecuted(unknownPaymentMethod(paymentMethod));
  if (card.kind === "authenticates") return requireAction(ctx, intent, paymentMethod, returnUrl, useStripeSdk);
  return charge(ctx, intent, paymentMethod, card.kind === "declines" ? card : null);
}

function cardOf(ctx: Ctx, paymentMethod: string): Card | null {
  const token = ctx.ledger.paymentMethods.tokenOf(paymentMethod);
  return token === undefined ? null : cardFor(token);
}

/** The shopper's answer on the authentication page. Returns false when the intent no longer waits for one. */
export function finishAuthentication(ctx: Ctx, intent: PaymentIntent, completed: boolean): boolean {
  if (intent.status !== "requires_action" || !intent.payment_method) return false;
  const paymentMethod = intent.payment_method;
  intent.next_action = null;
  if (completed) {
    ctx.stats.authenticationsCompleted += 1;
    if (intent.confirmation_method === "manual") {
      // Back to the server, which confirms it with its secret key (chargeAuthenticated). Assumed: no event, as Stripe has none for this status.
      const pending = ctx.ledger.authentications.get(intent.id);
      ctx.ledger.authentications.set(intent.id, { returnUrl: pending?.returnUrl ?? null, completed: true });
      intent.status = "requires_confirmation";
      return true;
    }
    chargeAuthenticated(ctx, intent, paymentMethod);
    return true;
  }
  ctx.stats.authenticationsFailed += 1;
  const error: PaymentError = {
    type: "invalid_request_error",
    code: "payment_intent_authentication_failure",
    message: AUTHENTICATION_FAILURE,
    doc_url: "https://stripe.com/docs/error-codes/payment-intent-authentication-failure",
    payment_method: ctx.ledger.paymentMethods.object(paymentMethod),
  };
  Object.assign(intent, { status: "requires_payment_method", payment_method: null, last_payment_error: error });
  emit(ctx, "payment_intent.payment_failed", intent);
  return true;
}

/**
 * The server's confirm of a manual intent the shopper already authenticated:
 * a card is charged with what the issuer answers after the challenge; a bank
 * redirect the bank authorized succeeds (no Charge recorded, as for a debit).
 */
export function chargeAuthenticated(ctx: Ctx, intent: PaymentIntent, paymentMethod: string): Outcome {
  if (bankRedirectTypeOf(ctx.ledger.paymentMethods.tokenOf(paymentMethod) ?? "")) {
    ctx.ledger.authentications.delete(intent.id);
    bankPaid(ctx, intent);
    return { response: ok(structuredClone(intent)), executed: true, charge: "succeeded" };
  }
  const card = cardOf(ctx, paymentMethod);
  const after = card?.kind === "authenticates" ? card.afterAuthentication : null;
  return charge(ctx, intent, paymentMethod, after ? { decline: after, blocked: false } : null);
}

function requireAction(
  ctx: Ctx,
  intent: PaymentIntent,
  paymentMethod: string,
  returnUrl: string | null,
  useStripeSdk: boolean,
): Outcome {
  const url = `${ctx.origin}/_emulator/3ds/${encodeURIComponent(intent.id)}?client_secret=${encodeURIComponent(intent.client_secret)}`;
  // Without return_url, or with a token Stripe.js made, Stripe hands the action to Stripe.js;
  // otherwise it is a redirect.
  const inPlace = useStripeSdk || !returnUrl;
  intent.next_action =
    returnUrl && !inPlace
      ? { type: "redirect_to_url", redirect_to_url: { url, return_url: returnUrl } }
      : {
          type: "use_stripe_sdk",
          use_stripe_sdk: { type: "three_d_secure_redirect", stripe_js: url, source: randomId("src_") },
        };
  Object.assign(intent, { status: "requires_action", payment_method: paymentMethod, last_payment_error: null });
  ctx.ledger.authentications.set(intent.id, { returnUrl: inPlace ? null : returnUrl });
  ctx.stats.authenticationsRequired += 1;
  emit(ctx, "payment_intent.requires_action", intent);
  return { response: ok(structuredClone(intent)), executed: true, charge: null };
}

/**
 * iDEAL or Bancontact: always a redirect to the bank's page, whoever made the
 * token (Stripe.js's handleNextAction follows a redirect_to_url by navigating).
 */
function sendToBank(ctx: Ctx, intent: PaymentIntent, paymentMethod: string, returnUrl: string | null): Outcome {
  if (!returnUrl)
    return notExecuted(invalidRequest(RETURN_URL_REQUIRED, { code: "parameter_missing", param: "return_url" }));
  const url = `${ctx.origin}/_emulator/bank/${encodeURIComponent(intent.id)}?client_secret=${encodeURIComponent(intent.client_secret)}`;
  intent.next_action = { type: "redirect_to_url", redirect_to_url: { url, return_url: returnUrl } };
  Object.assign(intent, { status: "requires_action", payment_method: paymentMethod, last_payment_error: null });
  ctx.ledger.authentications.set(intent.id, { returnUrl });
  ctx.stats.authenticationsRequired += 1;
  emit(ctx, "payment_intent.requires_action", intent);
  return { response: ok(structuredClone(intent)), executed: true, charge: null };
}

/**
 * The shopper's answer at the bank. Stripe hears it from the bank at once,
 * whether or not the shopper comes back. Authorized: `succeeded` under
 * automatic confirmation; under manual confirmation back to
 * `requires_confirmation`, as Stripe's confirm reference says of any next
 * action (and as 3-D Secure does here), for the server to confirm
 * (chargeAuthenticated). Failed: back to `requires_payment_method`.
 * Returns false when the intent no longer waits for the bank.
 */
export function finishBankRedirect(ctx: Ctx, intent: PaymentIntent, authorized: boolean): boolean {
  if (intent.status !== "requires_action" || !intent.payment_method) return false;
  if (!bankRedirectTypeOf(ctx.ledger.paymentMethods.tokenOf(intent.payment_method) ?? "")) return false;
  intent.next_action = null;
  if (authorized && intent.confirmation_method === "manual") {
    // Assumed: no event, as Stripe has none for this status (the same as after 3-D Secure).
    const pending = ctx.ledger.authentications.get(intent.id);
    ctx.ledger.authentications.set(intent.id, { returnUrl: pending?.returnUrl ?? null, completed: true });
    Object.assign(intent, { status: "requires_confirmation", last_payment_error: null });
    return true;
  }
  if (authorized) {
    bankPaid(ctx, intent);
    return true;
  }
  const error: PaymentError = {
    type: "invalid_request_error",
    code: "payment_intent_authentication_failure",
    message: BANK_FAILURE,
    doc_url: "https://stripe.com/docs/error-codes/payment-intent-authentication-failure",
    payment_method: ctx.ledger.paymentMethods.object(intent.payment_method),
  };
  Object.assign(intent, { status: "requires_payment_method", payment_method: null, last_payment_error: error });
  ctx.stats.authenticationsFailed += 1;
  emit(ctx, "payment_intent.payment_failed", intent);
  return true;
}

function bankPaid(ctx: Ctx, intent: PaymentIntent): void {
  Object.assign(intent, { status: "succeeded", amount_received: intent.amount, last_payment_error: null });
  ctx.stats.charges += 1;
  emit(ctx, "payment_intent.succeeded", intent);
}

/** Charges the card and records the result on the intent, success or decline: the ledger keeps both. */
function charge(
  ctx: Ctx,
  intent: PaymentIntent,
  paymentMethod: string,
  refused: { decline: Decline; blocked: boolean } | null,
): Outcome {
  const decline = refused?.decline ?? null;
  const recorded = ctx.ledger.charges.record({
    amount: intent.amount,
    currency: intent.currency,
    paymentIntent: intent.id,
    paymentMethod,
    card: ctx.ledger.paymentMethods.card(paymentMethod),
    metadata: intent.metadata,
    failure: refused ? { ...refused.decline, blocked: refused.blocked } : null,
  });
  intent.latest_charge = recorded.id;
  if (!decline) {
    Object.assign(intent, {
      status: "succeeded",
      payment_method: paymentMethod,
      amount_received: intent.amount,
      last_payment_error: null,
    });
    ctx.stats.charges += 1;
    emit(ctx, "payment_intent.succeeded", intent);
    return { response: ok(structuredClone(intent)), executed: true, charge: "succeeded" };
  }
  const error: PaymentError = {
    type: "card_error",
    code: decline.code,
    decline_code: decline.declineCode,
    message: decline.message,
    charge: recorded.id,
    doc_url: `https://stripe.com/docs/error-codes/${decline.code.replace(/_/g, "-")}`,
    payment_method: ctx.ledger.paymentMethods.object(paymentMethod),
  };
  // As at Stripe, a declined intent drops its payment method and waits for a new one.
  Object.assign(intent, { status: "requires_payment_method", payment_method: null, last_payment_error: error });
  ctx.stats.declines += 1;
  emit(ctx, "payment_intent.payment_failed", intent);
  const response = stripeError(402, { ...error, payment_intent: structuredClone(intent) });
  return { response, executed: true, charge: "declined" };
}

/**
 * A SEPA debit: Stripe answers `processing` at once and decides days later
 * (here: when the emulator's clock reaches the test IBAN's time, see settleDue).
 */
function startDebit(
  ctx: Ctx,
  intent: PaymentIntent,
  paymentMethod: string,
  debit: { becomes: "succeeded" | "failed"; afterSeconds: number },
): Outcome {
  Object.assign(intent, { status: "processing", payment_method: paymentMethod, last_payment_error: null });
  ctx.ledger.settlements.set(intent.id, { dueAt: ctx.ledger.now() + debit.afterSeconds, becomes: debit.becomes });
  ctx.stats.debitsStarted += 1;
  emit(ctx, "payment_intent.processing", intent);
  // The wall clock gets there too, as at Stripe, for an emulator nobody advances.
  ctx.later.run(debit.afterSeconds * 1000, () => settleDue(ctx));
  return { response: ok(structuredClone(intent)), executed: true, charge: null };
}

const DEBIT_FAILURE = "The customer's bank account could not be debited.";

/** Decides every debit due on the emulator's clock, with the events Stripe sends; returns how many it decided. */
export function settleDue(ctx: Ctx): number {
  const now = ctx.ledger.now();
  let settled = 0;
  for (const [id, due] of [...ctx.ledger.settlements]) {
    if (due.dueAt > now) continue;
    ctx.ledger.settlements.delete(id);
    const intent = ctx.ledger.get(id);
    if (!intent || intent.status !== "processing" || !intent.payment_method) continue;
    settled += 1;
    if (due.becomes === "succeeded") {
      Object.assign(intent, { status: "succeeded", amount_received: intent.amount });
      ctx.stats.charges += 1;
      emitLater(ctx, "payment_intent.succeeded", intent);
      continue;
    }
    // Assumed: the error's code and wording; the status and event are Stripe's.
    const error: PaymentError = {
      type: "invalid_request_error",
      code: "payment_intent_payment_attempt_failed",
      message: DEBIT_FAILURE,
      doc_url: "https://stripe.com/docs/error-codes/payment-intent-payment-attempt-failed",
      payment_method: ctx.ledger.paymentMethods.object(intent.payment_method),
    };
    Object.assign(intent, { status: "requires_payment_method", payment_method: null, last_payment_error: error });
    ctx.stats.debitsFailed += 1;
    emitLater(ctx, "payment_intent.payment_failed", intent);
  }
  return settled;
}
