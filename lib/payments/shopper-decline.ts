/**
 * What a shopper may be told of a decline. Stripe's decline codes docs say
 * not to reveal these to the customer but to present them as a
 * `generic_decline`: they tell a card tester which stolen card was flagged.
 * The order keeps Stripe's own code for the operator.
 */
const UNTOLD = new Set(["fraudulent", "lost_card", "stolen_card", "pickup_card", "merchant_blacklist"]);

export const GENERIC_DECLINE = { declineCode: "generic_decline", message: "Your card was declined." } as const;

export function shopperDecline(declineCode: string, message: string): { declineCode: string; message: string } {
  return UNTOLD.has(declineCode) ? GENERIC_DECLINE : { declineCode, message };
}

/** A stored decline code as the shopper's order page may show it. */
export function shopperDeclineCode(declineCode: string | null): string | null {
  return declineCode === null ? null : shopperDecline(declineCode, "").declineCode;
}
