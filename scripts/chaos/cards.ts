import type { Capabilities } from "./capabilities";

/**
 * The cards shoppers pay with, as a table: each kind is drawn by weight among
 * those the running system supports (see capabilities.ts), so the soak runs
 * today and grows as the emulator and the app learn 3-D Secure and friends.
 */
export interface CardKind {
  name: string;
  paymentMethod: string;
  weight: number;
  /** What the shopper does on the provider's authentication page. */
  authentication?: "complete" | "fail" | "abandon";
  /** Why it is off, or null when enabled. */
  disabled(caps: Capabilities): string | null;
}

const always = () => null;
const needs3ds = (caps: Capabilities) =>
  caps.threeDSecure ? null : "no 3-D Secure redirect (202 requires_action) yet";

export const CARD_KINDS: CardKind[] = [
  { name: "visa", paymentMethod: "pm_card_visa", weight: 50, disabled: always },
  { name: "declined", paymentMethod: "pm_card_chargeDeclined", weight: 10, disabled: always },
  { name: "insufficient_funds", paymentMethod: "pm_card_chargeDeclinedInsufficientFunds", weight: 4, disabled: always },
  {
    name: "3ds_completed",
    paymentMethod: "pm_card_threeDSecure2Required",
    weight: 8,
    authentication: "complete",
    disabled: needs3ds,
  },
  {
    name: "3ds_failed",
    paymentMethod: "pm_card_threeDSecure2Required",
    weight: 4,
    authentication: "fail",
    disabled: needs3ds,
  },
  {
    name: "3ds_abandoned",
    paymentMethod: "pm_card_authenticationRequired",
    weight: 3,
    authentication: "abandon",
    disabled: needs3ds,
  },
  {
    name: "3ds_then_declined",
    paymentMethod: "pm_card_threeDSecureRequiredChargeDeclined",
    weight: 2,
    authentication: "complete",
    disabled: needs3ds,
  },
  {
    name: "unknown_payment_method",
    paymentMethod: "pm_card_doesNotExist",
    weight: 4,
    disabled: (caps) =>
      caps.unknownPaymentMethodSettles ? null : "the app does not settle an unknown payment method yet (503 forever)",
  },
];

export function enabledCards(caps: Capabilities): CardKind[] {
  return CARD_KINDS.filter((card) => card.disabled(caps) === null);
}
