/**
 * Stripe's test payment methods that decline. Any other `pm_…` (pm_card_visa,
 * pm_card_mastercard, …) is charged successfully, as in Stripe test mode.
 */
export interface Decline {
  code: "card_declined";
  declineCode: string;
  message: string;
}

const DECLINES: Record<string, Decline> = {
  pm_card_chargeDeclined: { code: "card_declined", declineCode: "generic_decline", message: "Your card was declined." },
  pm_card_chargeDeclinedInsufficientFunds: {
    code: "card_declined",
    declineCode: "insufficient_funds",
    message: "Your card has insufficient funds.",
  },
  pm_card_chargeDeclinedFraudulent: { code: "card_declined", declineCode: "fraudulent", message: "Your card was declined." },
  pm_card_chargeDeclinedLostCard: { code: "card_declined", declineCode: "lost_card", message: "Your card was declined." },
};

export function declineFor(paymentMethod: string): Decline | null {
  return Object.hasOwn(DECLINES, paymentMethod) ? (DECLINES[paymentMethod] ?? null) : null;
}
