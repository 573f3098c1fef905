import { invalidRequest, type ApiResponse } from "./responses";

/**
 * The currencies Stripe takes each emulated method in: SEPA Direct Debit,
 * iDEAL and Bancontact take EUR only (Stripe's pages for each method); a card
 * takes any currency the emulator charges in (money.ts).
 */
const ONLY_IN: Readonly<Record<string, readonly string[]>> = {
  sepa_debit: ["eur"],
  ideal: ["eur"],
  bancontact: ["eur"],
};

export function takesCurrency(type: string, currency: string): boolean {
  const only = ONLY_IN[type];
  return only === undefined || only.includes(currency);
}

/** `allowed_payment_method_types` as Stripe reflects it in `payment_method_types`: the ones the currency allows, silently. */
export function compatibleTypes(types: readonly string[], currency: string): string[] {
  return types.filter((type) => takesCurrency(type, currency));
}

/**
 * `payment_method_types` (before API 2026-09-30) is not filtered: a type the
 * currency does not allow refuses the create, in Stripe's words.
 */
export function currencyRefusal(types: readonly string[], currency: string): ApiResponse | null {
  const type = types.find((t) => !takesCurrency(t, currency));
  if (type === undefined) return null;
  return invalidRequest(
    `The currency provided (${currency}) is invalid for one or more payment method types on this PaymentIntent. ` +
      `The payment method type ${type} only supports the following currencies: ${(ONLY_IN[type] ?? []).join(", ")}. ` +
      "Either correct the provided currency, or use a different PaymentIntent to accept this payment method type.",
    { param: "currency" },
  );
}

/**
 * A payment method the intent cannot take: its type is outside the intent's
 * allowed types, or does not take the intent's currency (the allowed types
 * were filtered, so it is missing from them too). Stripe's message lists the
 * types the intent takes.
 */
export function incompatibleMethod(
  type: string | null,
  intent: { currency: string; allowed: readonly string[] | null },
  emulated: readonly string[],
): ApiResponse | null {
  if (type === null) return null;
  const takes = compatibleTypes(intent.allowed ?? emulated, intent.currency);
  if (takes.includes(type)) return null;
  return invalidRequest(
    `The PaymentMethod provided (${type}) is not allowed for this PaymentIntent. ` +
      (takes.length > 0
        ? `Please attach a PaymentMethod of one of the following types: ${takes.join(", ")}. `
        : `None of its payment method types takes ${intent.currency}. `) +
      `Alternatively, update the allowed payment_method_types for this PaymentIntent to include "${type}".`,
    { code: "payment_intent_incompatible_payment_method", param: "payment_method" },
  );
}
