import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { cardFingerprint } from "./card-fingerprint";
import { drivePayment, type PaymentRequest } from "./drive";
import { permissionsFor, permissionTableMarkdown, type KeySetting, type Resource } from "./restricted-key";
import { createStripeClient } from "./stripe-client";

let emulator: StripeEmulator;
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
});
afterAll(async () => {
  await emulator.close();
});

const alwaysOwner = { refresh: async () => true };
const NEXT_YEAR = String(new Date().getFullYear() + 1);

function request(paymentMethod: string): PaymentRequest {
  const attemptId = randomUUID();
  return {
    attemptId,
    attempt: 1,
    amountCents: 1800,
    currency: "usd",
    paymentMethod,
    paymentIntentId: null,
    metadata: { orderId: attemptId, customerId: randomUUID(), idempotencyKey: randomUUID() },
    returnUrl: "http://127.0.0.1:3000/checkout/return?key=k",
    since: new Date(),
    accepts: (intent) => intent.metadata.orderId === attemptId,
  };
}

/** A card typed into the Payment Element: Stripe.js makes its token with the account's publishable key. */
async function typedCard(publishableKey: string): Promise<string> {
  const made = await fetch(`${emulator.url}/v1/confirmation_tokens`, {
    method: "POST",
    headers: { Authorization: `Bearer ${publishableKey}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": "4242424242424242",
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": NEXT_YEAR,
      "payment_method_data[card][cvc]": "123",
    }),
  });
  expect(made.status).toBe(200);
  return ((await made.json()) as { id: string }).id;
}

/** An account of its own and a restricted key on it holding exactly `permissions`. */
async function restrictedKey(permissions: Partial<Record<Resource, string>>) {
  const owner = `sk_test_rk_${randomUUID().replaceAll("-", "")}`;
  const control = new EmulatorClient(emulator.url, { apiKey: owner });
  await control.reset();
  const key = await control.restrictedKey(permissions as never);
  const stripe = createStripeClient({ secretKey: key.id, apiBase: emulator.url, maxNetworkRetries: 0 });
  return { stripe, publishableKey: owner.replace(/^sk_/, "pk_") };
}

/** What the shop (and, with `smoke`, `smoke:stripe`) asks of Stripe under these settings; throws at the first refusal. */
async function journey(settings: readonly KeySetting[], stripe: Stripe, publishableKey: string): Promise<void> {
  const token = await typedCard(publishableKey);
  // The key-pair check reads a token the publishable key made.
  await stripe.confirmationTokens.retrieve(token);
  if (settings.includes("declines_per_card")) {
    expect(await cardFingerprint(stripe, token)).toEqual(expect.any(String));
    expect(await cardFingerprint(stripe, "pm_card_visa")).toEqual(expect.any(String));
  }
  const paid = await drivePayment(stripe, request(token), alwaysOwner);
  // drivePayment turns errors into outcomes: a refused create is an unknown outcome naming the refusal.
  if (paid.kind !== "succeeded") throw new Error(`payment ${paid.kind}: ${JSON.stringify(paid)}`);
  const waiting = await drivePayment(stripe, request("pm_card_threeDSecure2Required"), alwaysOwner);
  if (waiting.kind !== "requires_action") throw new Error(`3-D Secure ${waiting.kind}: ${JSON.stringify(waiting)}`);
  await stripe.paymentIntents.retrieve(waiting.paymentIntentId);
  await stripe.paymentIntents.cancel(waiting.paymentIntentId);
  await stripe.paymentIntents.list({ limit: 1 });
  await stripe.paymentIntents.search({ query: `metadata['orderId']:'${randomUUID()}'` });
  await stripe.refunds.create({ payment_intent: paid.paymentIntentId, amount: 100 });
  await stripe.refunds.list({ payment_intent: paid.paymentIntentId });
  await stripe.events.list({ limit: 1 });
  if (settings.includes("smoke"))
    await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" });
}

const SETTINGS: KeySetting[][] = [[], ["declines_per_card"], ["smoke"], ["declines_per_card", "smoke"]];

describe("a restricted key with exactly the documented permissions", () => {
  it.each(SETTINGS.map((settings) => [settings.join(" and ") || "the defaults", settings] as const))(
    "takes payments under %s",
    async (_name, settings) => {
      const { stripe, publishableKey } = await restrictedKey(permissionsFor(settings));
      await journey(settings, stripe, publishableKey);
    },
  );

  it.each(SETTINGS.map((settings) => [settings.join(" and ") || "the defaults", settings] as const))(
    "needs every one of them under %s",
    async (_name, settings) => {
      const permissions = permissionsFor(settings);
      for (const resource of Object.keys(permissions) as Resource[]) {
        const { [resource]: _dropped, ...fewer } = permissions;
        const { stripe, publishableKey } = await restrictedKey(fewer);
        await expect(journey(settings, stripe, publishableKey), `without ${resource}`).rejects.toThrow(
          /permission|StripePermissionError/i,
        );
      }
      // Write where read would do is not asked for: read-only resources stay read-only.
      for (const [resource, access] of Object.entries(permissions)) {
        if (access !== "write") continue;
        const { stripe, publishableKey } = await restrictedKey({ ...permissions, [resource]: "read" });
        await expect(journey(settings, stripe, publishableKey), `${resource} read only`).rejects.toThrow(
          /permission|StripePermissionError/i,
        );
      }
    },
  );

  it("is the table docs/stripe-test-mode.md shows", () => {
    expect(readFileSync("docs/stripe-test-mode.md", "utf8")).toContain(permissionTableMarkdown());
  });
});
