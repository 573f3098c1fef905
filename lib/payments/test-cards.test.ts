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
        url: expect.stringContaining("/_emulator/3ds/"),
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
