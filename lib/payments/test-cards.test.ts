import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { drivePayment, type PaymentRequest } from "./drive";
import { createStripeClient } from "./stripe-client";

/**
 * Stripe's documented test payment methods, paid the way the checkout pays
 * (one create-and-confirm under the attempt's key), and the outcome the shop
 * stores for each: a card error is a decline with Stripe's decline code (a
 * processing error included: Stripe reports it as a card error on a payment
 * it did not take); a card that needs 3-D Secure waits for the shopper.
 */
let emulator: StripeEmulator;
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
});
afterAll(async () => {
  await emulator.close();
});

const alwaysOwner = { refresh: async () => true };

function pay(paymentMethod: string) {
  const stripe = createStripeClient({ secretKey: "sk_test_cards", apiBase: emulator.url, maxNetworkRetries: 0 });
  const attemptId = randomUUID();
  const request: PaymentRequest = {
    attemptId,
    attempt: 1,
    amountCents: 1800,
    currency: "usd",
    paymentMethod,
    paymentIntentId: null,
    metadata: { orderId: attemptId, customerId: randomUUID(), idempotencyKey: randomUUID() },
    returnUrl: "http://127.0.0.1:3000/checkout/return?key=k",
    since: new Date(),
    accepts: () => true,
  };
  return drivePayment(stripe, request, alwaysOwner);
}

describe("the outcome stored for each of Stripe's test payment methods", () => {
  it.each([
    ["pm_card_visa_chargeDeclined", "generic_decline"],
    ["pm_card_visa_chargeDeclinedInsufficientFunds", "insufficient_funds"],
    ["pm_card_visa_chargeDeclinedLostCard", "lost_card"],
    ["pm_card_visa_chargeDeclinedStolenCard", "stolen_card"],
    ["pm_card_visa_chargeDeclinedVelocityLimitExceeded", "card_velocity_exceeded"],
    ["pm_card_chargeDeclinedExpiredCard", "expired_card"],
    ["pm_card_chargeDeclinedIncorrectCvc", "incorrect_cvc"],
    ["pm_card_chargeDeclinedProcessingError", "processing_error"],
    ["pm_card_radarBlock", "fraudulent"],
  ])("%s: declined, %s", async (paymentMethod, declineCode) => {
    expect(await pay(paymentMethod)).toMatchObject({
      kind: "declined",
      declineCode,
      paymentIntentId: expect.stringMatching(/^pi_/),
    });
  });

  it.each(["pm_card_threeDSecureRequired", "pm_card_threeDSecure2Required", "pm_card_authenticationRequired"])(
    "%s: waits for the shopper's authentication",
    async (paymentMethod) => {
      expect(await pay(paymentMethod)).toMatchObject({
        kind: "requires_action",
        action: { type: "redirect", url: expect.stringContaining("/_emulator/3ds/") },
      });
    },
  );

  it.each(["pm_card_visa", "pm_card_threeDSecureOptional", "pm_card_refundFail", "pm_card_pendingRefund"])(
    "%s: paid",
    async (paymentMethod) => {
      expect(await pay(paymentMethod)).toMatchObject({ kind: "succeeded", amountCents: 1800, currency: "usd" });
    },
  );
});

describe("a ConfirmationToken in place of the payment method", () => {
  const stripe = () => createStripeClient({ secretKey: "sk_test_cards", apiBase: emulator.url, maxNetworkRetries: 0 });

  it("pays in the same one call, and a token that was used is a failure with Stripe's code, not an unknown", async () => {
    const token = await stripe().testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" });
    expect(await pay(token.id)).toMatchObject({ kind: "succeeded", amountCents: 1800 });
    expect(await pay(token.id)).toMatchObject({ kind: "failed", error: "payment_failed", code: "token_already_used" });
  });

  it("made by Stripe.js for a 3-D Secure card, waits for Stripe.js to authenticate with the client secret", async () => {
    const res = await fetch(`${emulator.url}/v1/confirmation_tokens`, {
      method: "POST",
      headers: { Authorization: "Bearer pk_test_cards", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        "payment_method_data[type]": "card",
        "payment_method_data[card][number]": "4000002760003184",
        "payment_method_data[card][exp_month]": "12",
        "payment_method_data[card][exp_year]": String(new Date().getFullYear() + 1),
        "payment_method_data[card][cvc]": "123",
      }),
    });
    const token = (await res.json()) as { id: string };
    const outcome = await pay(token.id);
    expect(outcome).toMatchObject({
      kind: "requires_action",
      action: { type: "use_stripe_sdk", clientSecret: expect.stringMatching(/^pi_\w+_secret_\w+$/) },
    });
  });
});
