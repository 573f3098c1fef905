import type Stripe from "stripe";
import { findAttemptIntent, paymentKeys } from "./attempt-intent";
import type { Fence } from "./drive";
import { attemptExpired, failed, outcomeOf, outcomeOfError, type PaymentOutcome } from "./outcome";
import { isStripeError } from "./stripe-errors";

/**
 * Settles an attempt for good (past its deadline, or an authentication
 * nobody finished): never creates or confirms anything. The attempt's intent
 * — recorded, or found by its metadata — decides: a success stands; anything
 * else is cancelled and recorded as a failure; no intent at all is a stored
 * failure with nothing charged.
 */
export async function settleForGood(
  stripe: Stripe,
  request: {
    attemptId: string;
    paymentIntentId: string | null;
    since: Date;
    accepts: (intent: Stripe.PaymentIntent) => boolean;
  },
  fence: Fence,
): Promise<PaymentOutcome> {
  let intent: Stripe.PaymentIntent | null = null;
  try {
    intent = request.paymentIntentId
      ? await stripe.paymentIntents.retrieve(request.paymentIntentId)
      : await findAttemptIntent(stripe, request.attemptId, request.since, request.accepts);
    if (!intent) return attemptExpired(null);
    if (intent.status === "succeeded" || intent.status === "canceled") return outcomeOf(intent);
    if (!(await fence.refresh())) return { kind: "fenced" };
    return await cancel(stripe, request.attemptId, intent);
  } catch (err) {
    return outcomeOfError(err, intent?.id ?? request.paymentIntentId, "read");
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
