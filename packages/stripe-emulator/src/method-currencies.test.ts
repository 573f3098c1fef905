import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { rejection, useEmulator, VISA } from "./test-support";

// SEPA Direct Debit, iDEAL and Bancontact take EUR only at Stripe, driven by
// the real stripe-node SDK: `allowed_payment_method_types` drops what the
// currency does not allow, a payment method of such a type is refused before
// anything is created, and the older `payment_method_types` refuses the create.

const emulator = useEmulator();
const MANDATE = {
  customer_acceptance: { type: "online", online: { ip_address: "203.0.113.7", user_agent: "Mozilla/5.0 test" } },
} as const;
const RETURN_URL = "http://shop.test/checkout/return?key=k";
const ALL = ["card", "sepa_debit", "ideal", "bancontact"];

function sepaToken(stripe: Stripe) {
  return stripe.testHelpers.confirmationTokens.create({
    payment_method_data: { type: "sepa_debit", sepa_debit: { iban: "DE89370400440532013000" } },
  });
}

describe("a method that takes EUR only", () => {
  it("is dropped from allowed types on a USD intent; a card still pays", async () => {
    const intent = await emulator.stripe().paymentIntents.create({ ...VISA, allowed_payment_method_types: ALL });
    expect(intent).toMatchObject({
      status: "succeeded",
      currency: "usd",
      allowed_payment_method_types: ALL,
      payment_method_types: ["card"],
    });
    const eur = await emulator
      .stripe()
      .paymentIntents.create({ ...VISA, currency: "eur", allowed_payment_method_types: ALL });
    expect(eur.payment_method_types).toEqual(ALL);
  });

  it("refuses a SEPA ConfirmationToken on a USD create-and-confirm, nothing created", async () => {
    const stripe = emulator.stripe();
    const token = await sepaToken(stripe);
    const refused = await rejection(
      stripe.paymentIntents.create({
        amount: 4200,
        currency: "usd",
        confirm: true,
        confirmation_token: token.id,
        allowed_payment_method_types: ["card", "sepa_debit"],
        mandate_data: MANDATE,
      }),
    );
    expect(refused).toMatchObject({
      type: "StripeInvalidRequestError",
      statusCode: 400,
      code: "payment_intent_incompatible_payment_method",
      param: "payment_method",
    });
    expect(refused.message).toBe(
      "The PaymentMethod provided (sepa_debit) is not allowed for this PaymentIntent. Please attach a PaymentMethod " +
        'of one of the following types: card. Alternatively, update the allowed payment_method_types for this PaymentIntent to include "sepa_debit".',
    );
    expect(await emulator.client().ledger()).toEqual([]);
    // The same token in EUR debits: the refusal was the currency's.
    const paid = await stripe.paymentIntents.create({
      amount: 4200,
      currency: "eur",
      confirm: true,
      confirmation_token: (await sepaToken(stripe)).id,
      allowed_payment_method_types: ["card", "sepa_debit"],
      mandate_data: MANDATE,
    });
    expect(paid.status).toBe("processing");
  });

  it("refuses iDEAL and Bancontact in USD without allowed types too", async () => {
    const stripe = emulator.stripe();
    for (const type of ["ideal", "bancontact"] as const) {
      const token = await stripe.testHelpers.confirmationTokens.create({ payment_method_data: { type } });
      const refused = await rejection(
        stripe.paymentIntents.create({
          amount: 4200,
          currency: "usd",
          confirm: true,
          confirmation_token: token.id,
          return_url: RETURN_URL,
        }),
      );
      expect(refused).toMatchObject({ statusCode: 400, code: "payment_intent_incompatible_payment_method" });
      expect(refused.message).toContain(`(${type}) is not allowed`);
    }
    expect(await emulator.client().ledger()).toEqual([]);
  });

  it("refuses a confirm that attaches an iDEAL PaymentMethod to a USD intent", async () => {
    const stripe = emulator.stripe();
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method_data: { type: "ideal" } });
    const inEur = await stripe.paymentIntents.create({
      amount: 4200,
      currency: "eur",
      confirm: true,
      confirmation_token: token.id,
      return_url: RETURN_URL,
    });
    const idealMethod = String(inEur.payment_method);
    expect((await stripe.paymentMethods.retrieve(idealMethod)).type).toBe("ideal");
    const inUsd = await stripe.paymentIntents.create({
      amount: 4200,
      currency: "usd",
      allowed_payment_method_types: ["card", "ideal"],
    });
    expect(inUsd.payment_method_types).toEqual(["card"]);
    const refused = await rejection(
      stripe.paymentIntents.confirm(inUsd.id, { payment_method: idealMethod, return_url: RETURN_URL }),
    );
    expect(refused).toMatchObject({ statusCode: 400, code: "payment_intent_incompatible_payment_method" });
    expect((await stripe.paymentIntents.retrieve(inUsd.id)).status).toBe("requires_payment_method");
  });

  it("refuses payment_method_types naming it with a USD currency, in Stripe's words", async () => {
    const stripe = emulator.stripe();
    // Only a caller pinned before API 2026-09-30 may send payment_method_types.
    const pinned = { apiVersion: "2026-08-27.dahlia" } as const;
    const legacy = (currency: string) =>
      ({ ...VISA, currency, payment_method_types: ["card", "sepa_debit"] }) as Stripe.PaymentIntentCreateParams;
    const refused = await rejection(stripe.paymentIntents.create(legacy("usd"), pinned));
    expect(refused).toMatchObject({ type: "StripeInvalidRequestError", statusCode: 400, param: "currency" });
    expect(refused.message).toBe(
      "The currency provided (usd) is invalid for one or more payment method types on this PaymentIntent. " +
        "The payment method type sepa_debit only supports the following currencies: eur. " +
        "Either correct the provided currency, or use a different PaymentIntent to accept this payment method type.",
    );
    expect(await emulator.client().ledger()).toEqual([]);
    expect((await stripe.paymentIntents.create(legacy("eur"), pinned)).status).toBe("succeeded");
  });
});
