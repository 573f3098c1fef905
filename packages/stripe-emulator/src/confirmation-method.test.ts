import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { rejection, useEmulator } from "./test-support";

// `confirmation_method`: who may confirm an intent. The SDK given the
// publishable key stands in for Stripe.js, which confirms with the key and
// the intent's client_secret.
const emulator = useEmulator();
const RETURN_URL = "http://127.0.0.1:3000/checkout/return?key=attempt-1";
const PUBLISHABLE_KEY = "pk_test_emulator";

/** What Stripe.js sends; stripe-node's types leave `client_secret` out of confirm's parameters. */
function byBrowser(intent: Stripe.PaymentIntent, paymentMethod: string): Stripe.PaymentIntentConfirmParams {
  return { client_secret: intent.client_secret, payment_method: paymentMethod } as Stripe.PaymentIntentConfirmParams;
}

/** The shopper on the bank's page: presses Complete or Fail and returns where it sends them back. */
async function authenticatedBy(intent: Stripe.PaymentIntent, action: "complete" | "fail"): Promise<URL> {
  const page = new URL(intent.next_action?.redirect_to_url?.url ?? "");
  const pressed = await fetch(new URL(page.pathname, page), {
    method: "POST",
    body: new URLSearchParams({ client_secret: intent.client_secret ?? "", action }),
    redirect: "manual",
  });
  expect(pressed.status).toBe(303);
  return new URL(pressed.headers.get("location") ?? "");
}

async function created(confirmationMethod?: "automatic" | "manual", paymentMethod = "pm_card_chargeDeclined") {
  const client = emulator.stripe();
  const declined = await rejection(
    client.paymentIntents.create({
      amount: 1999,
      currency: "eur",
      payment_method: paymentMethod,
      confirm: true,
      ...(confirmationMethod ? { confirmation_method: confirmationMethod } : {}),
    }),
  );
  const intent = (declined as Stripe.errors.StripeCardError).payment_intent;
  if (!intent) throw new Error("the decline names no intent");
  return intent;
}

async function waitingFor3DS(confirmationMethod: "automatic" | "manual", paymentMethod: string) {
  const intent = await emulator.stripe().paymentIntents.create({
    amount: 1999,
    currency: "eur",
    payment_method: paymentMethod,
    allowed_payment_method_types: ["card"],
    confirm: true,
    confirmation_method: confirmationMethod,
    return_url: RETURN_URL,
  });
  expect(intent).toMatchObject({ status: "requires_action", confirmation_method: confirmationMethod });
  return intent;
}

describe("confirmation_method", () => {
  it("is automatic unless the create says manual, and anything else is refused", async () => {
    const client = emulator.stripe();
    expect((await client.paymentIntents.create({ amount: 500, currency: "usd" })).confirmation_method).toBe(
      "automatic",
    );
    const manual = await client.paymentIntents.create({ amount: 500, currency: "usd", confirmation_method: "manual" });
    expect(manual.confirmation_method).toBe("manual");
    expect((await client.paymentIntents.retrieve(manual.id)).confirmation_method).toBe("manual");
    const wrong = await rejection(
      client.paymentIntents.create({
        amount: 500,
        currency: "usd",
        confirmation_method: "sometimes" as Stripe.PaymentIntentCreateParams.ConfirmationMethod,
      }),
    );
    expect(wrong).toMatchObject({ statusCode: 400, type: "StripeInvalidRequestError", param: "confirmation_method" });
  });

  it("an automatic intent is confirmed by the publishable key with its client secret, as Stripe.js would", async () => {
    const intent = await created();
    const browser = emulator.stripe({ secretKey: PUBLISHABLE_KEY });
    const paid = await browser.paymentIntents.confirm(intent.id, byBrowser(intent, "pm_card_visa"));
    expect(paid).toMatchObject({ id: intent.id, status: "succeeded", amount_received: 1999 });
    expect((await emulator.faults()).stats).toMatchObject({ charges: 1, declines: 1 });
  });

  it("a manual intent refuses the publishable key, with Stripe's message, and charges nothing", async () => {
    const intent = await created("manual");
    const browser = emulator.stripe({ secretKey: PUBLISHABLE_KEY });
    const refused = await rejection(browser.paymentIntents.confirm(intent.id, byBrowser(intent, "pm_card_visa")));
    expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(refused.statusCode).toBe(400);
    expect(refused.message).toBe(
      `This PaymentIntent ${intent.id} cannot be confirmed using your publishable key because its \`confirmation_method\` is set to \`manual\`. Please use your secret key instead, or create a PaymentIntent with \`confirmation_method\` set to \`automatic\`.`,
    );
    const after = await emulator.stripe().paymentIntents.retrieve(intent.id);
    expect(after).toMatchObject({ status: "requires_payment_method", amount_received: 0 });
    expect((await emulator.faults()).stats).toMatchObject({ charges: 0, declines: 1 });
  });

  it("the publishable key needs the intent's own client secret, and opens no other write", async () => {
    const intent = await created();
    const browser = emulator.stripe({ secretKey: PUBLISHABLE_KEY });
    const without = await rejection(browser.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" }));
    expect(without).toMatchObject({ statusCode: 400, param: "client_secret" });
    const forged = { ...intent, client_secret: `${intent.id}_secret_forged` };
    const wrong = await rejection(browser.paymentIntents.confirm(intent.id, byBrowser(forged, "pm_card_visa")));
    expect(wrong).toMatchObject({ statusCode: 400, param: "client_secret" });
    const cancel = await rejection(browser.paymentIntents.cancel(intent.id));
    expect(cancel).toMatchObject({ statusCode: 401 });
    expect((await emulator.faults()).stats).toMatchObject({ charges: 0, cancellations: 0 });
  });

  it("after 3-D Secure a manual intent waits for the server's confirm, which charges once", async () => {
    const intent = await waitingFor3DS("manual", "pm_card_threeDSecure2Required");
    const back = await authenticatedBy(intent, "complete");
    expect(back.searchParams.get("redirect_status")).toBe("succeeded");
    const waiting = await emulator.stripe().paymentIntents.retrieve(intent.id);
    expect(waiting).toMatchObject({ status: "requires_confirmation", next_action: null, amount_received: 0 });
    expect((await emulator.faults()).stats).toMatchObject({ authenticationsCompleted: 1, charges: 0 });

    const browser = emulator.stripe({ secretKey: PUBLISHABLE_KEY });
    const refused = await rejection(browser.paymentIntents.confirm(intent.id, byBrowser(intent, "pm_card_visa")));
    expect(refused).toMatchObject({ statusCode: 400, type: "StripeInvalidRequestError" });

    const paid = await emulator.stripe().paymentIntents.confirm(intent.id, { return_url: RETURN_URL });
    expect(paid).toMatchObject({ status: "succeeded", amount_received: 1999, payment_method: intent.payment_method });
    expect((await emulator.faults()).stats).toMatchObject({ authenticationsRequired: 1, charges: 1 });
  });

  it("a manual intent declined after the bank is declined at the server's confirm", async () => {
    const intent = await waitingFor3DS("manual", "pm_card_threeDSecureRequiredChargeDeclined");
    await authenticatedBy(intent, "complete");
    expect((await emulator.stripe().paymentIntents.retrieve(intent.id)).status).toBe("requires_confirmation");
    const declined = await rejection(emulator.stripe().paymentIntents.confirm(intent.id, { return_url: RETURN_URL }));
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(declined).toMatchObject({ statusCode: 402, code: "card_declined" });
    expect((await emulator.faults()).stats).toMatchObject({ authenticationsRequired: 1, charges: 0, declines: 1 });
  });

  it("a failed authentication fails a manual intent as an automatic one", async () => {
    const intent = await waitingFor3DS("manual", "pm_card_authenticationRequired");
    expect((await authenticatedBy(intent, "fail")).searchParams.get("redirect_status")).toBe("failed");
    expect(await emulator.stripe().paymentIntents.retrieve(intent.id)).toMatchObject({
      status: "requires_payment_method",
      last_payment_error: { code: "payment_intent_authentication_failure" },
    });
  });

  it("an automatic intent is charged by the bank page itself, as before", async () => {
    const intent = await waitingFor3DS("automatic", "pm_card_threeDSecure2Required");
    await authenticatedBy(intent, "complete");
    expect((await emulator.stripe().paymentIntents.retrieve(intent.id)).status).toBe("succeeded");
    expect((await emulator.faults()).stats).toMatchObject({ charges: 1 });
  });
});
