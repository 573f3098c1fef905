import type Stripe from "stripe";
import { isConfirmationToken } from "./drive";
import { isStripeError } from "./stripe-errors";

/**
 * The fingerprint of the card a checkout would pay with, read from Stripe
 * before anything is charged: the ConfirmationToken's preview of its
 * PaymentMethod (`payment_method_preview.card.fingerprint`), or the
 * PaymentMethod's own (`card.fingerprint`). Stripe gives one card number one
 * fingerprint, whoever types it and wherever from. Null when Stripe names
 * none, or does not know the credential (the charge then fails the same way,
 * and is recorded as it always is). Any other error is thrown: the caller
 * cannot tell which card it is.
 */
export async function cardFingerprint(stripe: Stripe, credential: string): Promise<string | null> {
  try {
    if (isConfirmationToken(credential)) {
      const token = await stripe.confirmationTokens.retrieve(credential);
      return token.payment_method_preview?.card?.fingerprint ?? null;
    }
    const paymentMethod = await stripe.paymentMethods.retrieve(credential);
    return paymentMethod.card?.fingerprint ?? null;
  } catch (err) {
    if (isStripeError(err, "StripeInvalidRequestError") && err.statusCode === 404) return null;
    throw err;
  }
}
