import type Stripe from "stripe";

/**
 * Refunds a PaymentIntent's charge, once. The idempotency key is derived from
 * the intent, so every delivery, retry and instance asks Stripe for the same
 * refund and gets the first one back. Returns the refund's id, or null when
 * Stripe says the charge was already refunded (someone else did it, e.g. in
 * the Dashboard). Anything else failing is thrown, to be retried.
 */
export async function refundIntentOnce(stripe: Stripe, paymentIntentId: string): Promise<string | null> {
  try {
    const refund = await stripe.refunds.create(
      { payment_intent: paymentIntentId },
      { idempotencyKey: `refund:${paymentIntentId}` },
    );
    return refund.id;
  } catch (err) {
    if (typeof err === "object" && err !== null && (err as { code?: unknown }).code === "charge_already_refunded") {
      return null;
    }
    throw err;
  }
}
