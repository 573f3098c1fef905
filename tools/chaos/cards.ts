/**
 * The cards shoppers pay with, as a table: each kind is drawn by weight, and
 * every kind runs in every soak. A shopper types the card's number (one of
 * Stripe's test card numbers, packages/stripe-emulator/src/card-numbers.ts)
 * and Stripe.js makes a ConfirmationToken of it; `paymentMethod` is the test
 * payment method that behaves the same, for an API client that sends one.
 */
export interface CardKind {
  name: string;
  /** What the shopper types into the Payment Element. */
  number: string;
  paymentMethod: string;
  weight: number;
  /** What the shopper does on the provider's authentication page. */
  authentication?: "complete" | "fail" | "abandon";
}

export const CARD_KINDS: CardKind[] = [
  { name: "visa", number: "4242424242424242", paymentMethod: "pm_card_visa", weight: 50 },
  { name: "declined", number: "4000000000000002", paymentMethod: "pm_card_chargeDeclined", weight: 10 },
  {
    name: "insufficient_funds",
    number: "4000000000009995",
    paymentMethod: "pm_card_chargeDeclinedInsufficientFunds",
    weight: 4,
  },
  {
    name: "3ds_completed",
    number: "4000000000003220",
    paymentMethod: "pm_card_threeDSecure2Required",
    weight: 8,
    authentication: "complete",
  },
  {
    name: "3ds_failed",
    number: "4000000000003220",
    paymentMethod: "pm_card_threeDSecure2Required",
    weight: 4,
    authentication: "fail",
  },
  {
    name: "3ds_abandoned",
    number: "4000002760003184",
    paymentMethod: "pm_card_authenticationRequired",
    weight: 3,
    authentication: "abandon",
  },
  {
    name: "3ds_then_declined",
    number: "4000008400001629",
    paymentMethod: "pm_card_threeDSecureRequiredChargeDeclined",
    weight: 2,
    authentication: "complete",
  },
  // A valid number that is none of Stripe's test numbers: test mode takes it for a live card and
  // makes no token of it, so the shopper sees the decline and the shop is never asked.
  { name: "live_card", number: "4111111111111111", paymentMethod: "pm_card_doesNotExist", weight: 4 },
];
