import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { createConfirmationToken, handleNextAction, type StripeJs } from "./stripe-js";

/** The soak's Stripe.js on the emulator: tokens from typed cards, and 3-D Secure completed in place. */
let emulator: StripeEmulator;
let stripeJs: StripeJs;
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
  stripeJs = { url: emulator.url, publishableKey: "pk_test_emulator" };
});
afterAll(() => emulator.close());

async function confirm(
  token: string,
): Promise<{ id: string; status: string; client_secret: string; next_action: { type: string } | null }> {
  const response = await fetch(`${emulator.url}/v1/payment_intents`, {
    method: "POST",
    headers: { authorization: "Bearer sk_test_emulator", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      amount: "2500",
      currency: "usd",
      confirmation_token: token,
      confirm: "true",
    }).toString(),
  });
  return (await response.json()) as {
    id: string;
    status: string;
    client_secret: string;
    next_action: { type: string } | null;
  };
}

async function statusOf(id: string): Promise<string> {
  const response = await fetch(`${emulator.url}/v1/payment_intents/${id}`, {
    headers: { authorization: "Bearer sk_test_emulator" },
  });
  return ((await response.json()) as { status: string }).status;
}

describe("the soak's Stripe.js", () => {
  it("makes a token of a test card number that pays as its test payment method", async () => {
    const made = await createConfirmationToken(stripeJs, "4242424242424242");
    expect(made).toMatchObject({ kind: "token", id: expect.stringMatching(/^ctoken_/) });
    const intent = await confirm((made as { id: string }).id);
    expect(intent.status).toBe("succeeded");
  });

  it("is refused a token for a number outside Stripe's test cards (a live card in test mode), as the element shows it", async () => {
    expect(await createConfirmationToken(stripeJs, "4111111111111111")).toMatchObject({
      kind: "refused",
      status: 402,
      code: "card_declined",
    });
  });

  it.each([
    ["complete", "succeeded"],
    ["fail", "requires_payment_method"],
  ] as const)("completes 3-D Secure in place: %s leaves the intent %s", async (choice, status) => {
    const made = await createConfirmationToken(stripeJs, "4000000000003220");
    const intent = await confirm((made as { id: string }).id);
    expect(intent.status).toBe("requires_action");
    expect(intent.next_action?.type).toBe("use_stripe_sdk");
    const handled = await handleNextAction(stripeJs, intent.client_secret, "http://shop.test/checkout", choice);
    expect(handled).toEqual({ id: intent.id, status });
    expect(await statusOf(intent.id)).toBe(status);
  });
});
