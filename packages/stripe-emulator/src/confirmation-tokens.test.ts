import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { knownCardNumbers } from "./card-numbers";
import { cardFor } from "./cards";
import { EmulatorClient } from "./client";
import { rejection, SECRET_KEY, useEmulator } from "./test-support";

// ConfirmationTokens, publishable keys and typed test cards, driven by the real stripe-node SDK
// (and by plain HTTP where Stripe.js would call: the SDK never sends a publishable key).

const emulator = useEmulator();
const PUBLISHABLE_KEY = "pk_test_emulator";
const RETURN_URL = "http://127.0.0.1:3000/checkout/return?key=attempt-1";
const NEXT_YEAR = String(new Date().getFullYear() + 1);

/** What the element's iframe sends for a typed card. */
async function elementToken(
  card: { number: string; exp_month?: string; exp_year?: string; cvc?: string },
  key = PUBLISHABLE_KEY,
) {
  const body = new URLSearchParams({
    "payment_method_data[type]": "card",
    "payment_method_data[card][number]": card.number,
    "payment_method_data[card][exp_month]": card.exp_month ?? "12",
    "payment_method_data[card][exp_year]": card.exp_year ?? NEXT_YEAR,
    "payment_method_data[card][cvc]": card.cvc ?? (card.number.startsWith("37") ? "1234" : "123"),
    "payment_method_data[billing_details][address][postal_code]": "10001",
  });
  const res = await fetch(`${emulator.url()}/v1/confirmation_tokens`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/x-www-form-urlencoded" },
    body,
  });
  return {
    status: res.status,
    json: (await res.json()) as Stripe.ConfirmationToken & { error?: { type: string; code?: string; message: string } },
  };
}

function payWith(stripe: Stripe, token: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}) {
  return stripe.paymentIntents.create({
    amount: 2500,
    currency: "usd",
    confirm: true,
    confirmation_token: token,
    allowed_payment_method_types: ["card"],
    ...extra,
  });
}

describe("ConfirmationTokens", () => {
  it("the test helper makes a 12-hour token that confirms one PaymentIntent once", async () => {
    const stripe = emulator.stripe();
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" });
    expect(token).toMatchObject({
      object: "confirmation_token",
      payment_intent: null,
      use_stripe_sdk: false,
      payment_method_preview: { type: "card", card: { brand: "visa", last4: "4242" } },
    });
    expect(token.id).toMatch(/^ctoken_/);
    expect(token.expires_at! - token.created).toBe(12 * 60 * 60);

    const intent = await payWith(stripe, token.id);
    expect(intent.status).toBe("succeeded");
    expect(intent.payment_method).toMatch(/^pm_(?!card_)/);
    // Used, it no longer expires.
    expect(await stripe.confirmationTokens.retrieve(token.id)).toMatchObject({
      payment_intent: intent.id,
      expires_at: null,
    });

    const again = await rejection(payWith(stripe, token.id));
    expect(again).toMatchObject({ type: "StripeInvalidRequestError", code: "token_already_used", statusCode: 400 });
    // The refused second use created nothing: one intent, one charge.
    expect((await stripe.paymentIntents.list()).data).toHaveLength(1);
    expect(await emulator.client().stat("charges")).toBe(1);
  });

  it("a replay under the same idempotency key answers the first result, not token_already_used", async () => {
    const stripe = emulator.stripe();
    const keyed = await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" });
    const a = await stripe.paymentIntents.create(
      { amount: 2500, currency: "usd", confirm: true, confirmation_token: keyed.id },
      { idempotencyKey: "attempt-1:create" },
    );
    const b = await stripe.paymentIntents.create(
      { amount: 2500, currency: "usd", confirm: true, confirmation_token: keyed.id },
      { idempotencyKey: "attempt-1:create" },
    );
    expect(b.id).toBe(a.id);
    expect(b.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(await emulator.client().stat("charges")).toBe(1);
  });

  it("an expired token is refused before any intent exists", async () => {
    const stripe = emulator.stripe();
    await emulator.setFaults({ confirmationTokenTtlMs: 1 });
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" });
    expect(token.expires_at).toBe(token.created);
    const error = await rejection(payWith(stripe, token.id));
    expect(error).toMatchObject({ code: "resource_missing", statusCode: 400, param: "confirmation_token" });
    expect((await stripe.paymentIntents.list()).data).toHaveLength(0);
  });

  it("an unknown token is 400 resource_missing, and confirmation_token needs confirm=true", async () => {
    const stripe = emulator.stripe();
    expect(await rejection(payWith(stripe, "ctoken_doesNotExist"))).toMatchObject({
      type: "StripeInvalidRequestError",
      statusCode: 400,
      code: "resource_missing",
      param: "confirmation_token",
      message: "No such confirmation_token: 'ctoken_doesNotExist'",
    });
    expect((await stripe.paymentIntents.list()).data).toHaveLength(0);
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" });
    const unconfirmed = await rejection(
      stripe.paymentIntents.create({ amount: 2500, currency: "usd", confirmation_token: token.id }),
    );
    expect(unconfirmed).toMatchObject({ type: "StripeInvalidRequestError", param: "confirmation_token" });
    expect(await rejection(stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_nope" }))).toMatchObject({
      code: "resource_missing",
    });
  });

  it("a declining test method declines through its token, with the token then used", async () => {
    const stripe = emulator.stripe();
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_chargeDeclined" });
    const error = await rejection(payWith(stripe, token.id));
    expect(error).toMatchObject({ type: "StripeCardError", code: "card_declined", decline_code: "generic_decline" });
    expect(await rejection(payWith(stripe, token.id))).toMatchObject({ code: "token_already_used" });
  });
});

describe("publishable keys", () => {
  it("create a ConfirmationToken from a typed card in the key's own account", async () => {
    const secret = "sk_test_ctoken_account";
    await new EmulatorClient(emulator.url(), { apiKey: secret }).reset();
    const made = await elementToken({ number: "4242424242424242" }, "pk_test_ctoken_account");
    expect(made.status).toBe(200);
    expect(made.json).toMatchObject({ use_stripe_sdk: true, payment_method_preview: { card: { last4: "4242" } } });
    // Its secret key sees it; another account's does not.
    const own = emulator.stripe({ secretKey: secret });
    expect((await own.confirmationTokens.retrieve(made.json.id)).id).toBe(made.json.id);
    expect(await rejection(emulator.stripe().confirmationTokens.retrieve(made.json.id))).toMatchObject({
      code: "resource_missing",
    });
  });

  it("are refused everywhere else, and a secret key is refused where only a publishable one belongs", async () => {
    const intents = await fetch(`${emulator.url()}/v1/payment_intents`, {
      headers: { Authorization: `Bearer ${PUBLISHABLE_KEY}` },
    });
    expect(intents.status).toBe(401);
    expect(((await intents.json()) as { error: { message: string } }).error.message).toMatch(/publishable API key/);
    const withSecret = await elementToken({ number: "4242424242424242" }, SECRET_KEY);
    expect(withSecret.status).toBe(400);
    expect(withSecret.json.error?.message).toMatch(/publishable key/);
    expect(await emulator.client().stat("confirmationTokens")).toBe(0);
  });
});

describe("typed test cards", () => {
  it.each([
    ["4242424242424242", "succeeded"],
    ["5555555555554444", "succeeded"],
    ["378282246310005", "succeeded"],
    ["4000000000000002", "generic_decline"],
    ["4000000000009995", "insufficient_funds"],
    ["4000000000000069", "expired_card"],
    ["4000000000000127", "incorrect_cvc"],
    ["4000000000000119", "processing_error"],
  ])("%s behaves as its pm_card_* token: %s", async (number, expected) => {
    const made = await elementToken({ number });
    expect(made.status).toBe(200);
    const result = await payWith(emulator.stripe(), made.json.id).then(
      (intent) => intent.status,
      (error: Stripe.errors.StripeError) => error.decline_code,
    );
    expect(result).toBe(expected);
  });

  it("4000 0027 6000 3184 asks for 3-D Secure through Stripe.js, even with a return_url", async () => {
    const made = await elementToken({ number: "4000002760003184" });
    const intent = await payWith(emulator.stripe(), made.json.id, { return_url: RETURN_URL });
    expect(intent.status).toBe("requires_action");
    expect(intent.next_action?.type).toBe("use_stripe_sdk");
  });

  it("every known number maps to a test method the emulator knows", () => {
    for (const [number, token] of Object.entries(knownCardNumbers())) {
      expect(cardFor(token), `${number} → ${token}`).not.toBeNull();
    }
  });

  it.each([
    [{ number: "4242424242424241" }, "incorrect_number"],
    [{ number: "4242" }, "incorrect_number"],
    [{ number: "4242424242424242", exp_year: String(new Date().getFullYear() - 1) }, "invalid_expiry_year"],
    [{ number: "4242424242424242", exp_month: "13" }, "invalid_expiry_month"],
    [{ number: "4242424242424242", cvc: "12" }, "invalid_cvc"],
    [{ number: "378282246310005", cvc: "123" }, "invalid_cvc"],
    [{ number: "4111111111111111" }, "card_declined"],
  ])("%o is refused with %s, and no token is made", async (card, code) => {
    const made = await elementToken(card);
    expect(made.status).toBe(402);
    expect(made.json.error).toMatchObject({ type: "card_error", code });
    expect(await emulator.client().stat("confirmationTokens")).toBe(0);
  });
});

describe("the emulator's Stripe.js", () => {
  it("serves the script and the Payment Element's iframe from its own origin", async () => {
    const script = await fetch(`${emulator.url()}/endive/stripe.js`);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    const source = await script.text();
    for (const name of ["createConfirmationToken", "handleNextAction", "submit", "Secure payment input frame"])
      expect(source).toContain(name);
    const frame = await (await fetch(`${emulator.url()}/endive/elements-inner-payment.html`)).text();
    for (const name of ["number", "expiry", "cvc", "postalCode"]) expect(frame).toContain(`name="${name}"`);
    // The checks the iframe runs are the emulator's own, served as source.
    expect(frame).toContain("function cardProblem(");
  });
});

describe("the browser's call", () => {
  it("is neither delayed nor held nor counted by the faults armed for the shop's server", async () => {
    await emulator.setFaults({ gate: true, latencyMs: 5_000, failNext: { status: 503, times: 1 } });
    const made = await elementToken({ number: "4242424242424242" });
    expect(made.status).toBe(200);
    const after = await emulator.faults();
    expect(after).toMatchObject({
      held: 0,
      failNext: { times: 1 },
      stats: { requests: 0, delayed: 0, confirmationTokens: 1 },
    });
    await emulator.setFaults({ gate: false, latencyMs: 0, failNext: null });
  });
});

describe("card fingerprints", () => {
  it("are one per card number, whichever way the card comes: typed, its test token, a decline, a PaymentMethod", async () => {
    const stripe = emulator.stripe();
    const typed = await elementToken({ number: "4000000000000002" });
    const typedAgain = await elementToken({ number: "4000000000000002", exp_month: "3", cvc: "999" });
    expect(typed.status).toBe(200);
    const fingerprint = typed.json.payment_method_preview?.card?.fingerprint;
    expect(fingerprint).toMatch(/^[A-Za-z0-9]{16}$/);
    // Another expiry and CVC with the same number: the same card.
    expect(typedAgain.json.payment_method_preview?.card?.fingerprint).toBe(fingerprint);
    const helper = await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_chargeDeclined" });
    expect(helper.payment_method_preview?.card?.fingerprint).toBe(fingerprint);

    // The decline the shop receives names the card's PaymentMethod, with the same fingerprint.
    const declined = await rejection(payWith(stripe, typed.json.id));
    expect(declined.type).toBe("StripeCardError");
    expect(declined.payment_method?.card?.fingerprint).toBe(fingerprint);
    const again = await rejection(
      stripe.paymentIntents.create({
        amount: 2500,
        currency: "usd",
        confirm: true,
        payment_method: "pm_card_chargeDeclined",
      }),
    );
    expect(again.payment_intent?.last_payment_error?.payment_method?.card?.fingerprint).toBe(fingerprint);
    expect((await stripe.paymentMethods.retrieve(again.payment_method!.id)).card?.fingerprint).toBe(fingerprint);

    // Another number is another card.
    const visa = await stripe.paymentMethods.retrieve("pm_card_visa");
    expect(visa.card).toMatchObject({ brand: "visa", last4: "4242" });
    expect(visa.card?.fingerprint).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(visa.card?.fingerprint).not.toBe(fingerprint);
    expect((await elementToken({ number: "4242424242424242" })).json.payment_method_preview?.card?.fingerprint).toBe(
      visa.card?.fingerprint,
    );
  });

  it("a PaymentMethod the emulator never made is resource_missing", async () => {
    const missing = await rejection(emulator.stripe().paymentMethods.retrieve("pm_nonexistent"));
    expect(missing).toMatchObject({ statusCode: 404, code: "resource_missing" });
  });
});

describe("a page on another origin", () => {
  it("may call POST /v1/confirmation_tokens (CORS), and no other API path", async () => {
    const preflight = await fetch(`${emulator.url()}/v1/confirmation_tokens`, {
      method: "OPTIONS",
      headers: {
        Origin: "http://shop.test",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toBe("POST");
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toBe("authorization, content-type");
    const made = await fetch(`${emulator.url()}/v1/confirmation_tokens`, {
      method: "POST",
      headers: {
        Origin: "http://shop.test",
        Authorization: `Bearer ${PUBLISHABLE_KEY}`,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({
        "payment_method_data[type]": "card",
        "payment_method_data[card][number]": "4242424242424242",
        "payment_method_data[card][exp_month]": "12",
        "payment_method_data[card][exp_year]": NEXT_YEAR,
        "payment_method_data[card][cvc]": "123",
      }),
    });
    expect(made.status).toBe(200);
    expect(made.headers.get("access-control-allow-origin")).toBe("*");
    const other = await fetch(`${emulator.url()}/v1/payment_intents`, {
      headers: { Origin: "http://shop.test", Authorization: `Bearer ${SECRET_KEY}` },
    });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});
