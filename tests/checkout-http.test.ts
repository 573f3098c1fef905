import http from "node:http";
import { describe, expect, it } from "vitest";
import type { FaultStats } from "@checkout/stripe-emulator/client";
import { useTestApp } from "./helpers/harness";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { CART, CART_TOTAL_CENTS, cart, newKey, Shopper, tokenCart, type Answer } from "./helpers/shopper";

/**
 * docs/contract.md §2 over real HTTP: every row of POST /api/checkout's status
 * table, the read routes, and the session. One `next start` server and one
 * Stripe emulator for the whole file; the emulator is reset before each test.
 * The 409 row is covered in checkout-slow-gateway.test.ts, the 503 row in
 * checkout-faults.test.ts.
 */
const h = useTestApp();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectError(answer: Answer, status: number, error: string) {
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status, error });
  expect(typeof answer.body.message).toBe("string");
  expect(answer.headers.get("idempotent-replayed")).toBeNull();
}

/** Nothing in the database for this customer or key, and the provider never heard of the request. */
async function expectNothingStored(customerId: string | null, key: string, statsBefore: FaultStats) {
  expect(await h.emulator.stats()).toEqual(statsBefore);
  expect(await h.db.stored(customerId, key)).toEqual({ keys: 0, orders: 0 });
  expect(await h.emulator.ledger()).toEqual([]);
}

describe("a shopper's session", () => {
  it("starts with POST /api/session, which sets a signed HttpOnly SameSite=Lax cookie and returns the customerId", async () => {
    const shopper = new Shopper(h.url);
    const first = await shopper.startSession();
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ customerId: expect.stringMatching(UUID) });
    const cookies = first.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    const attributes = cookies[0]!.split(";").map((part) => part.trim().toLowerCase());
    expect(attributes[0]).toMatch(/^checkout_session=.{40,}/);
    expect(attributes).toContain("httponly");
    expect(attributes).toContain("samesite=lax");
    expect(attributes).toContain("path=/");
    expect(cookies[0]).not.toContain(first.body.customerId); // sealed, not a readable id
    expect(attributes).not.toContain("secure"); // plain http: a Secure cookie would never come back

    const again = await shopper.startSession();
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ customerId: first.body.customerId });
  });

  it("sets a Secure cookie behind a TLS-terminating proxy (X-Forwarded-Proto: https)", async () => {
    const answer = await new Shopper(h.url).startSession({ "x-forwarded-proto": "https" });
    expect(answer.status).toBe(201);
    const attributes = answer.headers
      .getSetCookie()[0]!
      .split(";")
      .map((part) => part.trim().toLowerCase());
    expect(attributes).toContain("secure");
    expect(attributes).toContain("httponly");
  });

  it("is not started by a POST from another site's origin", async () => {
    const shopper = new Shopper(h.url);
    const answer = await shopper.startSession({ origin: "http://evil.example" });
    expectError(answer, 403, "forbidden_origin");
    expect(answer.headers.getSetCookie()).toEqual([]);
  });
});

describe("the catalogue", () => {
  it("lists every product as sku, name, priceCents and currency", async () => {
    const answer = await new Shopper(h.url).request("GET", "/api/products");
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBeGreaterThanOrEqual(6);
    for (const product of answer.body) {
      expect(Object.keys(product).sort()).toEqual(["currency", "name", "priceCents", "sku"]);
      expect(Number.isInteger(product.priceCents)).toBe(true);
    }
    expect(answer.body).toContainEqual({ sku: "tee-classic", name: "Classic Tee", priceCents: 2500, currency: "usd" });
    expect(answer.body).toContainEqual({ sku: "mug-enamel", name: "Enamel Mug", priceCents: 1800, currency: "usd" });
  });
});

describe("a shopper who pays", () => {
  it("is charged once and answered 201 with the order, a Location header and no replay header", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const answer = await shopper.checkout(key, cart());

    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      orderId: expect.stringMatching(UUID),
      status: "paid",
      amountCents: CART_TOTAL_CENTS,
      currency: "usd",
      paymentIntentId: expect.stringMatching(/^pi_/),
    });
    expect(answer.headers.get("location")).toBe(`/orders/${answer.body.orderId}`);
    expect(answer.headers.get("idempotent-replayed")).toBeNull();

    const order = await h.db.order(answer.body.orderId);
    expect(order).toMatchObject({
      customer_id: shopper.customerId,
      status: "paid",
      amount_cents: CART_TOTAL_CENTS,
      payment_intent_id: answer.body.paymentIntentId,
    });
    const record = await h.db.record(shopper.customerId!, key);
    expect(record).toMatchObject({
      endpoint: "POST /api/checkout",
      status: "completed",
      response_status: 201,
      attempts: 1,
      lock_token: null,
    });
    expect(JSON.parse(record!.response_body!)).toEqual(answer.body);

    expect((await h.emulator.stats()).charges).toBe(1);
    const ledger = await h.emulator.ledger();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({
      id: answer.body.paymentIntentId,
      status: "succeeded",
      amount: CART_TOTAL_CENTS,
      currency: "usd",
    });
    expect(ledger[0]!.metadata).toMatchObject({ orderId: answer.body.orderId, idempotencyKey: key });
  });

  it("who retries with the same key gets the stored 201 replayed, whatever the key's case or the JSON's key order, and Stripe hears nothing", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const first = await shopper.checkout(key, cart());
    expect(first.status).toBe(201);
    const before = await h.emulator.stats();

    const reordered = JSON.stringify({
      paymentMethod: "pm_card_visa",
      items: CART.map(({ sku, quantity }) => ({ quantity, sku })),
    });
    expect(reordered).not.toBe(JSON.stringify(cart()));
    for (const retry of [
      await shopper.checkout(key, cart()),
      await shopper.checkout(key.toUpperCase(), cart()),
      await shopper.checkout(key, reordered),
    ]) {
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual(first.body);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(retry.headers.get("location")).toBe(first.headers.get("location"));
    }

    expect(await h.emulator.stats()).toEqual(before);
    expect(await h.emulator.ledger()).toHaveLength(1);
    expect(await h.db.stored(shopper.customerId, key)).toEqual({ keys: 1, orders: 1 });
  });

  it("records the card that paid and passes the receipt email to Stripe on the one create", async () => {
    const shopper = await h.shopper();
    const answer = await shopper.checkout(newKey(), { ...cart("pm_card_mastercard"), receiptEmail: "jo@example.com" });
    expect(answer.status).toBe(201);
    expect(await h.db.order(answer.body.orderId)).toMatchObject({
      receipt_email: "jo@example.com",
      card_brand: "mastercard",
      card_last4: "4444",
    });
    expect((await shopper.order(answer.body.orderId)).body).toMatchObject({
      cardBrand: "mastercard",
      cardLast4: "4444",
      receiptEmail: "jo@example.com",
    });
    const [intent] = await h.emulator.ledger();
    expect(intent).toMatchObject({ id: answer.body.paymentIntentId, receipt_email: "jo@example.com" });
    expect((await h.emulator.stats()).charges).toBe(1);
  });

  it("pays from a browser page on the app's own origin", async () => {
    const shopper = await h.shopper();
    const answer = await shopper.checkout(newKey(), cart(), { origin: h.url });
    expect(answer.status).toBe(201);
  });

  it("may send a body of exactly 16 KiB", async () => {
    const shopper = await h.shopper();
    const json = JSON.stringify(cart());
    const body = json + " ".repeat(16 * 1024 - Buffer.byteLength(json));
    expect(Buffer.byteLength(body)).toBe(16 * 1024);
    expect((await shopper.checkout(newKey(), body)).status).toBe(201);
  });
});

describe("a checkout refused before anything is stored", () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ sku: `sku-${i}`, quantity: 1 }));
  const invalidBodies: Array<[string, unknown, Array<string | number>]> = [
    [
      "a quantity of 0",
      { items: [{ sku: "tee-classic", quantity: 0 }], paymentMethod: "pm_card_visa" },
      ["items", 0, "quantity"],
    ],
    [
      "a quantity of 100",
      { items: [{ sku: "tee-classic", quantity: 100 }], paymentMethod: "pm_card_visa" },
      ["items", 0, "quantity"],
    ],
    [
      "a fractional quantity",
      { items: [{ sku: "tee-classic", quantity: 1.5 }], paymentMethod: "pm_card_visa" },
      ["items", 0, "quantity"],
    ],
    ["an empty cart", { items: [], paymentMethod: "pm_card_visa" }, ["items"]],
    ["51 lines", { items: lines(51), paymentMethod: "pm_card_visa" }, ["items"]],
    [
      "an unknown sku",
      {
        items: [
          { sku: "tee-classic", quantity: 1 },
          { sku: "no-such-thing", quantity: 1 },
        ],
        paymentMethod: "pm_card_visa",
      },
      ["items", 1, "sku"],
    ],
    [
      "a price sent by the client",
      { items: [{ sku: "tee-classic", quantity: 1, priceCents: 1 }], paymentMethod: "pm_card_visa" },
      ["items", 0],
    ],
    ["an extra top-level field", { ...cart(), coupon: "FREE" }, []],
    [
      "the same sku twice",
      {
        items: [
          { sku: "tee-classic", quantity: 1 },
          { sku: "tee-classic", quantity: 2 },
        ],
        paymentMethod: "pm_card_visa",
      },
      ["items"],
    ],
    ["no payment method", { items: CART }, []],
    [
      "both a token and a payment method",
      { items: CART, paymentMethod: "pm_card_visa", confirmationToken: "ctoken_abc" },
      [],
    ],
    ["a token that is not a ctoken_ id", { items: CART, confirmationToken: "tok_visa" }, ["confirmationToken"]],
    ["a payment method that is not a pm_ id", { items: CART, paymentMethod: "4242424242424242" }, ["paymentMethod"]],
    ["a receipt email that is not an address", { ...cart(), receiptEmail: "jo at example" }, ["receiptEmail"]],
  ];

  it.each(invalidBodies)("400 invalid_request with issues for %s", async (_, body, path) => {
    const shopper = await h.shopper();
    const key = newKey();
    const before = await h.emulator.stats();
    const answer = await shopper.checkout(key, body);
    expectError(answer, 400, "invalid_request");
    expect(answer.body.issues.length).toBeGreaterThanOrEqual(1);
    expect(answer.body.issues).toContainEqual({ path, message: expect.any(String) });
    await expectNothingStored(shopper.customerId, key, before);
  });

  it("400 invalid_request for 50 lines of which some are unknown, at each unknown line", async () => {
    // 50 lines pass the schema (1..50); the catalogue has far fewer products, so most are unknown.
    const shopper = await h.shopper();
    const key = newKey();
    const before = await h.emulator.stats();
    const answer = await shopper.checkout(key, {
      items: [{ sku: "tee-classic", quantity: 1 }, ...lines(49)],
      paymentMethod: "pm_card_visa",
    });
    expectError(answer, 400, "invalid_request");
    expect(answer.body.issues).toHaveLength(49);
    expect(answer.body.issues[0]).toEqual({ path: ["items", 1, "sku"], message: expect.any(String) });
    await expectNothingStored(shopper.customerId, key, before);
  });

  it.each([
    ["no Idempotency-Key header", null, "idempotency_key_missing"],
    ["a blank Idempotency-Key", "   ", "idempotency_key_missing"],
    ["an Idempotency-Key that is not a UUID", "order-42", "idempotency_key_invalid"],
    ["a UUID with a stray character", `${newKey()}x`, "idempotency_key_invalid"],
  ])("400 for %s", async (_, key, error) => {
    const shopper = await h.shopper();
    const before = await h.emulator.stats();
    const answer = await shopper.checkout(key, cart());
    expectError(answer, 400, error!);
    await expectNothingStored(shopper.customerId, key ?? newKey(), before);
    expect(await h.db.ordersOf(shopper.customerId!)).toEqual([]);
  });

  it.each([
    ["a body that is not JSON", '{"items": [', "application/json"],
    ["an empty body", "", "application/json"],
    ["a JSON body sent as text/plain", JSON.stringify(cart()), "text/plain"],
  ])("400 invalid_json for %s", async (_, body, contentType) => {
    const shopper = await h.shopper();
    const key = newKey();
    const before = await h.emulator.stats();
    const answer = await shopper.request("POST", "/api/checkout", {
      body,
      headers: { "idempotency-key": key, "content-type": contentType },
    });
    expectError(answer, 400, "invalid_json");
    await expectNothingStored(shopper.customerId, key, before);
  });

  it("401 unauthenticated without a session cookie", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const before = await h.emulator.stats();
    const answer = await shopper.request("POST", "/api/checkout", {
      body: cart(),
      headers: { "idempotency-key": key },
      anonymous: true,
    });
    expectError(answer, 401, "unauthenticated");
    await expectNothingStored(shopper.customerId, key, before);
  });

  it.each([
    ["a tampered seal", (cookie: string) => cookie.slice(0, -6) + (cookie.endsWith("AAAAAA") ? "BBBBBB" : "AAAAAA")],
    ["a made-up value", () => "checkout_session=Fe26.2**0123456789abcdef*forged*customer"],
    ["a plain customer id", () => `checkout_session=${newKey()}`],
  ])("401 unauthenticated with a forged session cookie: %s", async (_, forge) => {
    const shopper = await h.shopper();
    const key = newKey();
    const before = await h.emulator.stats();
    const answer = await shopper.checkout(key, cart(), { cookie: forge(shopper.cookie!) });
    expectError(answer, 401, "unauthenticated");
    await expectNothingStored(shopper.customerId, key, before);
  });

  // iron-session's unseal turns only some malformed seals into an empty
  // session and throws on others; lib/session.ts drops such a cookie.
  it.each([
    ["a seal with the wrong mac prefix", "checkout_session=Fe26.1*1*a*b*c*d*e*f"],
    ["a seal with a non-numeric expiry", "checkout_session=Fe26.2*1*a*b*c*tomorrow*e*f"],
  ])("401 unauthenticated, not a 500, with a forged session cookie: %s", async (_, cookie) => {
    const shopper = await h.shopper();
    const key = newKey();
    const before = await h.emulator.stats();
    expectError(await shopper.checkout(key, cart(), { cookie }), 401, "unauthenticated");
    expectError(await shopper.request("GET", `/api/checkout/${key}`, { headers: { cookie } }), 401, "unauthenticated");
    expectError(await shopper.request("GET", "/api/orders", { headers: { cookie } }), 401, "unauthenticated");
    await expectNothingStored(shopper.customerId, key, before);
    const fresh = await shopper.request("POST", "/api/session", { headers: { cookie } });
    expect(fresh.status).toBe(201); // a new session replaces the garbage cookie
  });

  it("403 forbidden_origin for a browser POST from another site, even with a valid session", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const before = await h.emulator.stats();
    const answer = await shopper.checkout(key, cart(), { origin: "http://evil.example" });
    expectError(answer, 403, "forbidden_origin");
    await expectNothingStored(shopper.customerId, key, before);
  });

  it("413 payload_too_large for a body over 16 KiB with a Content-Length", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const before = await h.emulator.stats();
    const json = JSON.stringify(cart());
    const body = json + " ".repeat(16 * 1024 + 1 - Buffer.byteLength(json));
    const answer = await shopper.checkout(key, body);
    expectError(answer, 413, "payload_too_large");
    await expectNothingStored(shopper.customerId, key, before);
  });

  it("413 payload_too_large for a chunked body without Content-Length that grows past 16 KiB", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const before = await h.emulator.stats();
    const answer = await postChunked(
      `${h.url}/api/checkout`,
      {
        cookie: shopper.cookie!,
        "idempotency-key": key,
        "content-type": "application/json",
      },
      ['{"paymentMethod":"pm_card_visa","items":[', ...Array.from({ length: 40 }, () => " ".repeat(1024))],
    );
    expect(answer.sentContentLength).toBe(false);
    expect(answer.status).toBe(413);
    expect(answer.body.error).toBe("payload_too_large");
    // The server answered before reading it all: it never buffered the whole body.
    expect(answer.chunksWritten).toBeLessThan(41);
    await expectNothingStored(shopper.customerId, key, before);
  });
});

describe("a shopper whose card is declined", () => {
  it.each([
    ["pm_card_chargeDeclined", "generic_decline"],
    ["pm_card_chargeDeclinedInsufficientFunds", "insufficient_funds"],
  ])(
    "with %s gets 402 card_declined (%s), stored; a retry replays it and never reaches the bank",
    async (paymentMethod, declineCode) => {
      const shopper = await h.shopper();
      const key = newKey();
      const answer = await shopper.checkout(key, cart(paymentMethod));

      expectError(answer, 402, "card_declined");
      expect(answer.body).toEqual({
        error: "card_declined",
        message: expect.any(String),
        declineCode,
        orderId: expect.stringMatching(UUID),
      });
      expect(await h.db.order(answer.body.orderId)).toMatchObject({ status: "failed", decline_code: declineCode });
      expect(await h.db.record(shopper.customerId!, key)).toMatchObject({
        status: "failed",
        response_status: 402,
        attempts: 1,
      });
      const stats = await h.emulator.stats();
      expect(stats).toMatchObject({ declines: 1, charges: 0 });
      const ledger = await h.emulator.ledger();
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({
        status: "requires_payment_method",
        last_payment_error: { code: "card_declined", decline_code: declineCode },
      });

      const before = await h.emulator.stats();
      const retry = await shopper.checkout(key, cart(paymentMethod));
      expect(retry.status).toBe(402);
      expect(retry.body).toEqual(answer.body);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(await h.emulator.stats()).toEqual(before); // not one request reached Stripe
      expect(await h.emulator.ledger()).toEqual(ledger);

      const state = await shopper.attempt(key);
      expect(state.status).toBe(200);
      expect(state.body).toEqual({ status: "failed", response: { statusCode: 402, body: answer.body } });
    },
  );

  it.each([
    ["pm_card_chargeDeclinedFraudulent", "fraudulent"],
    ["pm_card_chargeDeclinedStolenCard", "stolen_card"],
    ["pm_card_chargeDeclinedLostCard", "lost_card"],
  ])("with %s is told a generic decline, as Stripe advises; the order keeps %s", async (paymentMethod, declineCode) => {
    const shopper = await h.shopper();
    const answer = await shopper.checkout(newKey(), cart(paymentMethod));
    expect(answer.body).toEqual({
      error: "card_declined",
      message: "Your card was declined.",
      declineCode: "generic_decline",
      orderId: expect.stringMatching(UUID),
    });
    expect((await h.emulator.ledger())[0]).toMatchObject({ last_payment_error: { decline_code: declineCode } });
    expect(await h.db.order(answer.body.orderId)).toMatchObject({ status: "failed", decline_code: declineCode });
    const order = await shopper.request("GET", `/api/orders/${answer.body.orderId}`);
    expect(order.body).toMatchObject({ status: "failed", declineCode: "generic_decline" });
  });
});

describe("a shopper who pays with a ConfirmationToken", () => {
  const stripe = () =>
    createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url, maxNetworkRetries: 0 });
  const token = async (paymentMethod = "pm_card_visa") =>
    (await stripe().testHelpers.confirmationTokens.create({ payment_method: paymentMethod })).id;

  it("is charged once in one create-and-confirm, and a retry replays the 201 without using the token again", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const ctoken = await token();
    const answer = await shopper.checkout(key, tokenCart(ctoken));
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ status: "paid", amountCents: CART_TOTAL_CENTS });
    const [intent] = await h.emulator.ledger();
    expect(intent).toMatchObject({ id: answer.body.paymentIntentId, status: "succeeded" });
    expect(intent!.payment_method).toMatch(/^pm_/);
    expect((await stripe().confirmationTokens.retrieve(ctoken)).payment_intent).toBe(intent!.id);
    expect(await h.db.order(answer.body.orderId)).toMatchObject({ payment_method: ctoken });

    const before = await h.emulator.stats();
    const retry = await shopper.checkout(key, tokenCart(ctoken));
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(answer.body);
    expect(await h.emulator.stats()).toEqual(before);
  });

  it("with a new token under the same key is refused 422: the token is part of the attempt", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    expect((await shopper.checkout(key, tokenCart(await token()))).status).toBe(201);
    const again = await shopper.checkout(key, tokenCart(await token()));
    expectError(again, 422, "idempotency_key_reuse");
    expect((await h.emulator.stats()).charges).toBe(1);
  });

  it.each([
    ["already used", "token_already_used"],
    ["expired", "resource_missing"],
    ["unknown to Stripe", "resource_missing"],
  ])(
    "with a token that is %s gets a stored 402 with Stripe's code, and a retry never asks Stripe again",
    async (how, code) => {
      const shopper = await h.shopper();
      let ctoken: string;
      if (how === "expired") {
        await h.emulator.faults({ confirmationTokenTtlMs: 1 });
        ctoken = await token();
      } else if (how === "unknown to Stripe") {
        ctoken = "ctoken_NeverMadeByStripe"; // e.g. made with another account's publishable key
      } else {
        ctoken = await token();
        await stripe().paymentIntents.create({
          amount: 500,
          currency: "usd",
          confirm: true,
          confirmation_token: ctoken,
        });
      }
      const chargesBefore = (await h.emulator.stats()).charges;
      const key = newKey();
      const answer = await shopper.checkout(key, tokenCart(ctoken));
      expectError(answer, 402, "payment_failed");
      expect(answer.body).toMatchObject({ code });
      expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "failed", response_status: 402 });
      const before = await h.emulator.stats();
      expect(before.charges).toBe(chargesBefore);
      const retry = await shopper.checkout(key, tokenCart(ctoken));
      expect(retry.body).toEqual(answer.body);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(await h.emulator.stats()).toEqual(before);
    },
  );

  it("made by Stripe.js for a 3-D Secure card answers 202 with the client secret for handleNextAction, the same on replay", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const made = await fetch(`${h.app.emulator.url}/v1/confirmation_tokens`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${h.app.emulator.apiKey.replace(/^sk_/, "pk_")}`,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({
        "payment_method_data[type]": "card",
        "payment_method_data[card][number]": "4000002760003184",
        "payment_method_data[card][exp_month]": "12",
        "payment_method_data[card][exp_year]": String(new Date().getFullYear() + 2),
        "payment_method_data[card][cvc]": "123",
      }),
    });
    expect(made.status).toBe(200);
    const ctoken = ((await made.json()) as { id: string }).id;
    const answer = await shopper.checkout(key, tokenCart(ctoken));
    expect(answer.status).toBe(202);
    const [intent] = await h.emulator.ledger();
    expect(answer.body).toEqual({
      status: "requires_action",
      orderId: expect.stringMatching(UUID),
      nextAction: { type: "use_stripe_sdk", clientSecret: intent!.client_secret },
    });
    const replay = await shopper.checkout(key, tokenCart(ctoken));
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(answer.body);
    expect((await h.emulator.ledger()).length).toBe(1);
  });
});

describe("a key used again", () => {
  it("with a changed quantity is refused 422 idempotency_key_reuse, and nothing more is charged or stored", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const first = await shopper.checkout(key, cart());
    expect(first.status).toBe(201);
    const before = await h.emulator.stats();

    const changedQuantity = cart("pm_card_visa", [
      { sku: "tee-classic", quantity: 3 },
      { sku: "mug-enamel", quantity: 1 },
    ]);
    const changedCard = cart("pm_card_mastercard");
    const changedEmail = { ...cart(), receiptEmail: "jo@example.com" };
    for (const body of [changedQuantity, changedCard, changedEmail]) {
      const answer = await shopper.checkout(key, body);
      expectError(answer, 422, "idempotency_key_reuse");
      expect(answer.body.orderId).toBeUndefined(); // never another purchase's confirmation
    }
    expect(await h.emulator.stats()).toEqual(before);
    expect(await h.emulator.ledger()).toHaveLength(1);
    expect(await h.db.stored(shopper.customerId, key)).toEqual({ keys: 1, orders: 1 });
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "completed", response_status: 201 });
  });

  it("by two customers is two independent payments, and neither can see the other's attempt", async () => {
    const alice = await h.shopper();
    const bob = await h.shopper();
    const key = newKey();

    const paidByAlice = await alice.checkout(key, cart());
    expect(paidByAlice.status).toBe(201);
    const bobLooks = await bob.attempt(key);
    expectError(bobLooks, 404, "not_found");

    const paidByBob = await bob.checkout(key, cart());
    expect(paidByBob.status).toBe(201);
    expect(paidByBob.headers.get("idempotent-replayed")).toBeNull();
    expect(paidByBob.body.orderId).not.toBe(paidByAlice.body.orderId);
    expect(paidByBob.body.paymentIntentId).not.toBe(paidByAlice.body.paymentIntentId);

    expect((await alice.attempt(key)).body.response.body).toEqual(paidByAlice.body);
    expect((await bob.attempt(key)).body.response.body).toEqual(paidByBob.body);
    expect((await h.emulator.stats()).charges).toBe(2);
    const ledger = await h.emulator.ledger();
    expect(ledger.map((pi) => pi.id).sort()).toEqual(
      [paidByAlice.body.paymentIntentId, paidByBob.body.paymentIntentId].sort(),
    );
    expect(ledger.every((pi) => pi.status === "succeeded")).toBe(true);
  });
});

describe("GET /api/checkout/{key}", () => {
  it("shows a completed attempt with its stored status code and body, uncached", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const paid = await shopper.checkout(key, cart());
    const state = await shopper.attempt(key);
    expect(state.status).toBe(200);
    expect(state.body).toEqual({ status: "completed", response: { statusCode: 201, body: paid.body } });
    expect(state.headers.get("cache-control")).toBe("no-store");
    expect((await shopper.attempt(key.toUpperCase())).body).toEqual(state.body);
  });

  it("answers 404 for a key never used and for something that is not a key, and 401 without a session", async () => {
    const shopper = await h.shopper();
    expectError(await shopper.attempt(newKey()), 404, "not_found");
    expectError(await shopper.attempt("not-a-key"), 404, "not_found");
    expectError(await new Shopper(h.url).attempt(newKey()), 401, "unauthenticated");
  });
});

describe("GET /api/orders", () => {
  it("lists the shopper's own orders, newest first; a cart only declined is no order", async () => {
    const shopper = await h.shopper();
    const first = await shopper.checkout(newKey(), cart("pm_card_visa", [{ sku: "tee-classic", quantity: 1 }]));
    const second = await shopper.checkout(
      newKey(),
      cart("pm_card_chargeDeclined", [{ sku: "mug-enamel", quantity: 2 }]),
    );
    const third = await shopper.checkout(newKey(), cart("pm_card_visa", [{ sku: "socks-merino", quantity: 3 }]));
    expect([first.status, second.status, third.status]).toEqual([201, 402, 201]);
    const someoneElse = await h.shopper();
    await someoneElse.checkout(newKey(), cart());

    const orders = await shopper.orders();
    expect(orders.status).toBe(200);
    expect(orders.body.map((o) => o.id)).toEqual([third.body.orderId, first.body.orderId]);
    expect(orders.body.map((o) => [o.status, o.amountCents, o.declineCode])).toEqual([
      ["paid", 3 * 1400, null],
      ["paid", 2500, null],
    ]);
    // The declined attempt is still the shopper's to read, by its id.
    const declined = await shopper.order(second.body.orderId);
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({ status: "failed", declineCode: "generic_decline" });
    expect(orders.body[0]!.lines).toEqual([
      { sku: "socks-merino", name: "Merino Socks", unitPriceCents: 1400, quantity: 3 },
    ]);
    const created = orders.body.map((o) => Date.parse(o.createdAt));
    expect([...created].sort((a, b) => b - a)).toEqual(created);

    expect((await (await h.shopper()).orders()).body).toEqual([]);
    expectError(await new Shopper(h.url).orders(), 401, "unauthenticated");
  });
});

/**
 * POSTs `chunks` one by one with Transfer-Encoding: chunked (no Content-Length),
 * stopping as soon as the server answers.
 */
async function postChunked(url: string, headers: Record<string, string>, chunks: string[]) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answer is whatever JSON the server sent
  return new Promise<{ status: number; body: any; chunksWritten: number; sentContentLength: boolean }>(
    (resolve, reject) => {
      let chunksWritten = 0;
      let answered = false;
      const req = http.request(url, { method: "POST", headers });
      req.on("error", (error) => (answered ? undefined : reject(error)));
      req.on("response", (res) => {
        answered = true;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(text),
            chunksWritten,
            sentContentLength: req.hasHeader("content-length"),
          });
          req.destroy();
        });
      });
      const writeNext = () => {
        if (answered) return;
        if (chunksWritten === chunks.length) return void req.end();
        req.write(chunks[chunksWritten++]!, () => setTimeout(writeNext, 5));
      };
      writeNext();
    },
  );
}
