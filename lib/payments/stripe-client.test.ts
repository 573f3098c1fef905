import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { startStripeEmulator } from "@checkout/stripe-emulator";
import { outcomeOfError } from "./outcome";
import { createStripeClient } from "./stripe-client";

/** The Stripe client's budget of places, and Stripe's answer to made-up credentials, through the real SDK. */
describe("a paced Stripe client", () => {
  it("waits for a place before every request, and fails as a timeout when none comes in time", async () => {
    const emulator = await startStripeEmulator({ port: 0 });
    try {
      const asked: number[] = [];
      let place: number | null = 40;
      const stripe = createStripeClient({
        secretKey: "sk_test_paced",
        apiBase: emulator.url,
        maxNetworkRetries: 0,
        timeoutMs: 5_000,
        pace: (maxWaitMs) => {
          asked.push(maxWaitMs);
          return Promise.resolve(place);
        },
      });
      expect((await stripe.paymentIntents.list({ limit: 1 })).object).toBe("list");
      expect(asked).toEqual([5_000]);
      place = null;
      const error = await stripe.paymentIntents.create({ amount: 100, currency: "usd" }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
      expect(asked).toHaveLength(2);
      // Nothing reached Stripe: no intent was made.
      place = 0;
      expect((await stripe.paymentIntents.list()).data).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});

describe("a payment method that does not exist", () => {
  it("fails the attempt as payment_failed, marked as a made-up credential", async () => {
    const emulator = await startStripeEmulator({ port: 0 });
    try {
      const stripe = createStripeClient({ secretKey: "sk_test_madeup", apiBase: emulator.url, maxNetworkRetries: 0 });
      const error = await stripe.paymentIntents
        .create({ amount: 100, currency: "usd", payment_method: "pm_card_madeUp", confirm: true })
        .catch((err: unknown) => err);
      expect(outcomeOfError(error, null, "write")).toMatchObject({
        kind: "failed",
        error: "payment_failed",
        code: "resource_missing",
        unknownCredential: true,
      });
      // Any other refusal of a create is a failure, not a made-up credential.
      const other = await stripe.paymentIntents.create({ amount: -1, currency: "usd" }).catch((err: unknown) => err);
      expect(outcomeOfError(other, null, "write")).toMatchObject({ kind: "failed" });
      expect(outcomeOfError(other, null, "write")).not.toHaveProperty("unknownCredential");
    } finally {
      await emulator.close();
    }
  });
});
