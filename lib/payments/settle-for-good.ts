import type Stripe from "stripe";
import { findAttemptIntent, paymentKeys } from "./attempt-intent";
import { confirm, type Fence } from "./drive";
import { attemptExpired, EXPAND_CARD, failed, outcomeOf, outcomeOfError, type PaymentOutcome } from "./outcome";
import { isStripeError } from "./stripe-errors";

/**
 * Settles an attempt for good (past its deadline, or an authentication
 * nobody finished): never creates anything. The attempt's intent — recorded,
 * or found by its metadata — decides: a success stands; one the shopper
 * authenticated and nobody confirmed (they closed the page on the way back)
 * is confirmed once, as Stripe would have confirmed it at the bank without
 * manual confirmation; anything else is cancelled and recorded as a failure;
 * no intent at all is a stored failure with nothing charged.
 */
export async function settleForGood(
  stripe: Stripe,
  request: {
    attemptId: string;
    paymentIntentId: string | null;
    since: Date;
    accepts: (intent: Stripe.PaymentIntent) => boolean;
    /** The owner's confirm key and the attempt's return URL, for an intent authenticated and not yet confirmed. */
    confirmKey: string;
    returnUrl: string;
  },
  fence: Fence,
): Promise<PaymentOutcome> {
  let intent: Stripe.PaymentIntent | null = null;
  try {
    intent = request.paymentIntentId
      ? await stripe.paymentIntents.retrieve(request.paymentIntentId, EXPAND_CARD)
      : await findAttemptIntent(stripe, request.attemptId, request.since, request.accepts);
    if (!intent) return attemptExpired(null);
    if (intent.status === "succeeded" || intent.status === "canceled") return outcomeOf(intent);
    if (!(await fence.refresh())) return { kind: "fenced" };
    if (intent.status === "requires_confirmation" && intent.confirmation_method === "manual") {
      intent = await confirmed(stripe, intent, request.confirmKey, request.returnUrl);
      if (intent.status === "succeeded") return outcomeOf(intent);
    }
    return await cancel(stripe, request.attemptId, intent);
  } catch (err) {
    return outcomeOfError(err, intent?.id ?? request.paymentIntentId, "read");
  }
}

/** The confirm's answer, or the intent as the decline left it. */
async function confirmed(
  stripe: Stripe,
  intent: Stripe.PaymentIntent,
  confirmKey: string,
  returnUrl: string,
): Promise<Stripe.PaymentIntent> {
  try {
    return await confirm(stripe, intent.id, confirmKey, returnUrl);
  } catch (err) {
    if (isStripeError(err, "StripeCardError") && err.payment_intent) return err.payment_intent;
    throw err;
  }
}

async function cancel(stripe: Stripe, attemptId: string, intent: Stripe.PaymentIntent): Promise<PaymentOutcome> {
  let canceled: Stripe.PaymentIntent;
  try {
    canceled = await stripe.paymentIntents.cancel(
      intent.id,
      { cancellation_reason: "abandoned" },
      { idempotencyKey: paymentKeys(attemptId).cancel },
    );
  } catch (err) {
    // It moved on meanwhile (succeeded, or cannot be cancelled while processing): its state decides.
    if (!(isStripeError(err, "StripeInvalidRequestError") && err.code === "payment_intent_unexpected_state")) throw err;
    canceled = await stripe.paymentIntents.retrieve(intent.id);
    if (canceled.status !== "canceled") return outcomeOf(canceled);
  }
  if (intent.status === "requires_action") {
    return failed(
      intent.id,
      "authentication_abandoned",
      "abandoned",
      "The card's authentication was never completed; nothing was charged.",
    );
  }
  const before = outcomeOf(intent);
  return before.kind === "declined" || before.kind === "failed" ? before : attemptExpired(canceled.id);
}
