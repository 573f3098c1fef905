/**
 * The cards shoppers pay with, as a table: each kind is drawn by weight, and
 * every kind runs in every soak.
 */
export interface CardKind {
  name: string;
  paymentMethod: string;
  weight: number;
  /** What the shopper does on the provider's authentication page. */
  authentication?: "complete" | "fail" | "abandon";
}

export const CARD_KINDS: CardKind[] = [
  { name: "visa", paymentMethod: "pm_card_visa", weight: 50 },
  { name: "declined", paymentMethod: "pm_card_chargeDeclined", weight: 10 },
  { name: "insufficient_funds", paymentMethod: "pm_card_chargeDeclinedInsufficientFunds", weight: 4 },
  {
    name: "3ds_completed",
    paymentMethod: "pm_card_threeDSecure2Required",
    weight: 8,
    authentication: "complete",
  },
  {
    name: "3ds_failed",
    paymentMethod: "pm_card_threeDSecure2Required",
    weight: 4,
    authentication: "fail",
  },
  {
    name: "3ds_abandoned",
    paymentMethod: "pm_card_authenticationRequired",
    weight: 3,
    authentication: "abandon",
  },
  {
    name: "3ds_then_declined",
    paymentMethod: "pm_card_threeDSecureRequiredChargeDeclined",
    weight: 2,
    authentication: "complete",
  },
  {
    name: "unknown_payment_method",
    paymentMethod: "pm_card_doesNotExist",
    weight: 4,
  },
];
