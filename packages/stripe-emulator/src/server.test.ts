import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createStripeClient } from "../../../lib/payments/stripe-client";
import type { FaultSettings, FaultsView } from "./faults";
import { startStripeEmulator, type StripeEmulator } from "./server";

// Driven by the real stripe-node SDK, built the way the app builds it, so the
// emulator is proven against what the app will actually send and parse.
const SECRET_KEY = "sk_test_emulator";
const VISA = { amount: 1999, currency: "usd", payment_method: "pm_card_visa", confirm: true } as const;

let emulator: StripeEmulator;

beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
});

afterAll(async () => {
  await emulator.close();
});

beforeEach(async () => {
  const res = await fetch(`${emulator.url}/_emulator/reset`, { method: "POST" });
  expect(await res.json()).toEqual({ ok: true });
});

function stripe(options: { maxNetworkRetries?: number; timeoutMs?: number; secretKey?: string } = {}): Stripe {
  return createStripeClient({
    secretKey: options.secretKey ?? SECRET_KEY,
    apiBase: emulator.url,
    maxNetworkRetries: options.maxNetworkRetries ?? 0,
    timeoutMs: options.timeoutMs ?? 10_000,
  });
}

async function postFaults(body: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${emulator.url}/_emulator/faults`, { method: "POST", body });
  return { status: res.status, json: await res.json() };
}

async function setFaults(faults: Partial<FaultSettings>): Promise<FaultsView> {
  const { status, json } = await postFaults(JSON.stringify(faults));
  expect(status).toBe(200);
  return json as FaultsView;
}

async function faults(): Promise<FaultsView> {
  return (await (await fetch(`${emulator.url}/_emulator/faults`)).json()) as FaultsView;
}

/** The provider's ledger, read through the SDK as the app's tests will read it. */
async function ledger(): Promise<Stripe.PaymentIntent[]> {
  return (await stripe().paymentIntents.list({ limit: 100 })).data;
}

/** Settles a promise into its error, failing the test if it resolved. */
async function rejection(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await promise;
  } catch (error) {
    return error as Stripe.errors.StripeError;
  }
  throw new Error("expected the call to be rejected, but it resolved");
}

function replayedHeader(response: { lastResponse: { headers: Record<string, string> } }): string | undefined {
  return response.lastResponse.headers["idempotent-replayed"];
}

describe("PaymentIntents", () => {
  it("charges pm_card_visa and keeps the intent in the ledger", async () => {
    const client = stripe();
    const intent = await client.paymentIntents.create({
      ...VISA,
      currency: "EUR",
      metadata: { orderId: "order-42" },
      description: "2 mugs",
    });

    expect(intent).toMatchObject({
      object: "payment_intent",
      status: "succeeded",
      amount: 1999,
      amount_received: 1999,
      currency: "eur",
      // A PaymentMethod of its own, made from the test token, as at Stripe.
      payment_method: expect.stringMatching(/^pm_[A-Za-z0-9]{24}$/),
      metadata: { orderId: "order-42" },
      description: "2 mugs",
      livemode: false,
      last_payment_error: null,
    });
    expect(intent.id).toMatch(/^pi_[A-Za-z0-9]{24}$/);
    expect(intent.latest_charge).toMatch(/^ch_/);
    expect(intent.client_secret).toMatch(new RegExp(`^${intent.id}_secret_`));
    expect(intent.lastResponse.requestId).toMatch(/^req_/);
    expect(replayedHeader(intent)).toBeUndefined();

    expect(await client.paymentIntents.retrieve(intent.id)).toEqual({ ...intent });
    expect((await ledger()).map((pi) => pi.id)).toEqual([intent.id]);
    expect((await faults()).stats.charges).toBe(1);
  });

  it.each([
    ["pm_card_chargeDeclined", "generic_decline", "Your card was declined."],
    ["pm_card_chargeDeclinedInsufficientFunds", "insufficient_funds", "Your card has insufficient funds."],
  ])("declines %s with a 402 card_error and still records the intent", async (paymentMethod, declineCode, message) => {
    const error = await rejection(stripe().paymentIntents.create({ ...VISA, payment_method: paymentMethod }));

    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({ statusCode: 402, code: "card_declined", decline_code: declineCode, message });
    expect(error.charge).toMatch(/^ch_/);
    expect(error.payment_intent).toMatchObject({
      status: "requires_payment_method",
      last_payment_error: { decline_code: declineCode },
    });
    const [stored, ...others] = await ledger();
    expect(others).toEqual([]);
    expect(stored).toMatchObject({
      id: error.payment_intent?.id,
      status: "requires_payment_method",
      amount_received: 0,
    });
    expect((await faults()).stats).toMatchObject({ charges: 0, declines: 1 });
  });

  it("lists newest first with limit and has_more, and 404s an unknown intent", async () => {
    const client = stripe();
    const created: string[] = [];
    for (const amount of [100, 200, 300]) created.push((await client.paymentIntents.create({ ...VISA, amount })).id);

    const page = await client.paymentIntents.list({ limit: 2 });
    expect(page).toMatchObject({ object: "list", url: "/v1/payment_intents", has_more: true });
    expect(page.data.map((pi) => pi.id)).toEqual([created[2], created[1]]);
    const next = await client.paymentIntents.list({ limit: 2, starting_after: created[1] });
    expect(next.data.map((pi) => pi.id)).toEqual([created[0]]);
    expect(next.has_more).toBe(false);
    expect((await client.paymentIntents.list({ limit: 3 })).has_more).toBe(false);
    const badLimit = await rejection(client.paymentIntents.list({ limit: 101 }));
    expect(badLimit).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(badLimit).toMatchObject({ statusCode: 400, param: "limit" });

    const missing = await rejection(client.paymentIntents.retrieve("pi_doesnotexist"));
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 404, code: "resource_missing", param: "intent" });
  });

  it("answers validation errors with Stripe's codes and executes nothing", async () => {
    const client = stripe();
    const noAmount = await rejection(
      client.paymentIntents.create({ currency: "usd" } as Stripe.PaymentIntentCreateParams),
    );
    expect(noAmount).toMatchObject({ statusCode: 400, code: "parameter_missing", param: "amount" });
    const notInteger = await rejection(client.paymentIntents.create({ ...VISA, amount: 12.5 }));
    expect(notInteger).toMatchObject({ statusCode: 400, code: "parameter_invalid_integer", param: "amount" });
    const noCurrency = await rejection(
      client.paymentIntents.create({ amount: 100 } as Stripe.PaymentIntentCreateParams),
    );
    expect(noCurrency).toMatchObject({ statusCode: 400, code: "parameter_missing", param: "currency" });
    expect(noCurrency).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(await ledger()).toEqual([]);
  });
});

describe("authentication", () => {
  it.each([
    ["sk_live_abcdefghijklmnop", /^Invalid API Key provided/],
    ["pk_test_abcdefghijklmnop", /^This API call cannot be made with a publishable API key/],
  ])("refuses %s with 401", async (secretKey, message) => {
    const error = await rejection(stripe({ secretKey }).paymentIntents.create(VISA));
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(error.statusCode).toBe(401);
    expect(error.rawType).toBe("invalid_request_error");
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("abcdefghijklmnop"); // never echoes the secret
    expect(await ledger()).toEqual([]);
  });

  it("refuses a request without an Authorization header", async () => {
    const res = await fetch(`${emulator.url}/v1/payment_intents`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error" } });
  });
});

describe("idempotency", () => {
  it("replays the first response for the same key and parameters", async () => {
    const client = stripe();
    const idempotencyKey = randomUUID();
    const first = await client.paymentIntents.create({ ...VISA, metadata: { a: "1", b: "2" } }, { idempotencyKey });
    // Same parameters in another order: compared canonically, so still "the same request".
    const second = await client.paymentIntents.create({ metadata: { b: "2", a: "1" }, ...VISA }, { idempotencyKey });

    expect(second.id).toBe(first.id);
    expect(replayedHeader(first)).toBeUndefined();
    expect(replayedHeader(second)).toBe("true");
    expect(second.lastResponse.headers["original-request"]).toBe(first.lastResponse.requestId);
    expect(second.lastResponse.requestId).not.toBe(first.lastResponse.requestId);
    expect(await ledger()).toHaveLength(1);
    expect((await faults()).stats).toMatchObject({ charges: 1, replayed: 1 });
  });

  it("replays a decline without charging again", async () => {
    const client = stripe();
    const idempotencyKey = randomUUID();
    const declined = { ...VISA, payment_method: "pm_card_chargeDeclined" };
    const first = await rejection(client.paymentIntents.create(declined, { idempotencyKey }));
    const second = await rejection(client.paymentIntents.create(declined, { idempotencyKey }));

    expect(second).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(second.payment_intent?.id).toBe(first.payment_intent?.id);
    expect(first.headers?.["idempotent-replayed"]).toBeUndefined();
    expect(second.headers?.["idempotent-replayed"]).toBe("true");
    expect(await ledger()).toHaveLength(1);
    expect((await faults()).stats.declines).toBe(1);
  });

  it("rejects the same key with different parameters", async () => {
    const client = stripe();
    const idempotencyKey = randomUUID();
    await client.paymentIntents.create(VISA, { idempotencyKey });
    const error = await rejection(client.paymentIntents.create({ ...VISA, amount: 2999 }, { idempotencyKey }));

    expect(error).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(error).toMatchObject({ statusCode: 400, rawType: "idempotency_error" });
    expect(error.message).toMatch(/same parameters they were first used with/);
    expect(await ledger()).toHaveLength(1);
  });

  it("answers 409 idempotency_key_in_use while the first request still runs", async () => {
    await setFaults({ latencyMs: 1500 });
    const client = stripe({ maxNetworkRetries: 0 }); // stripe-node retries 409s by itself otherwise
    const idempotencyKey = randomUUID();
    const first = client.paymentIntents.create(VISA, { idempotencyKey });
    // Wait until A has claimed the key and is inside the injected latency, rather than guessing a delay.
    await vi.waitFor(async () => expect((await faults()).stats.delayed).toBe(1), { timeout: 1000, interval: 20 });

    const duplicate = await rejection(client.paymentIntents.create(VISA, { idempotencyKey }));
    expect(duplicate).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(duplicate).toMatchObject({ statusCode: 409, code: "idempotency_key_in_use", rawType: "idempotency_error" });
    const winner = await first;
    expect(winner.status).toBe("succeeded");
    expect(await ledger()).toHaveLength(1);
    // The 409 was not stored: the key now replays A's result.
    await setFaults({ latencyMs: 0 });
    expect((await client.paymentIntents.create(VISA, { idempotencyKey })).id).toBe(winner.id);
  });

  it("does not keep validation errors, so the key can still be used", async () => {
    const client = stripe();
    const idempotencyKey = randomUUID();
    const invalid = await rejection(client.paymentIntents.create({ ...VISA, amount: 0 }, { idempotencyKey }));
    expect(invalid).toMatchObject({ statusCode: 400, param: "amount" });
    // Different parameters, same key: accepted because nothing was stored for the 400.
    const intent = await client.paymentIntents.create(VISA, { idempotencyKey });
    expect(intent.status).toBe("succeeded");
    expect(replayedHeader(intent)).toBeUndefined();
  });

  it("scopes keys per API key", async () => {
    const idempotencyKey = randomUUID();
    const a = await stripe({ secretKey: "sk_test_shop_a" }).paymentIntents.create(VISA, { idempotencyKey });
    const b = await stripe({ secretKey: "sk_test_shop_b" }).paymentIntents.create(VISA, { idempotencyKey });
    expect(b.id).not.toBe(a.id);
    expect(replayedHeader(b)).toBeUndefined();
  });
});

describe("confirm", () => {
  it("confirms a created intent once", async () => {
    const client = stripe();
    const created = await client.paymentIntents.create({
      amount: 500,
      currency: "usd",
      payment_method: "pm_card_visa",
    });
    expect(created).toMatchObject({ status: "requires_confirmation", latest_charge: null, amount_received: 0 });
    expect((await client.paymentIntents.create({ amount: 500, currency: "usd" })).status).toBe(
      "requires_payment_method",
    );

    const confirmed = await client.paymentIntents.confirm(created.id);
    expect(confirmed).toMatchObject({ id: created.id, status: "succeeded", amount_received: 500 });
    expect(confirmed.latest_charge).toMatch(/^ch_/);

    const again = await rejection(client.paymentIntents.confirm(created.id));
    expect(again).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(again).toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
    expect((await faults()).stats.charges).toBe(1);

    const unknown = await rejection(client.paymentIntents.confirm("pi_unknown"));
    expect(unknown).toMatchObject({ statusCode: 404, code: "resource_missing" });
  });

  it("leaves a declined intent waiting for another payment method", async () => {
    const client = stripe();
    const created = await client.paymentIntents.create({
      amount: 700,
      currency: "usd",
      payment_method: "pm_card_chargeDeclinedInsufficientFunds",
    });
    const declined = await rejection(client.paymentIntents.confirm(created.id));
    expect(declined).toMatchObject({ statusCode: 402, decline_code: "insufficient_funds" });
    expect(await client.paymentIntents.retrieve(created.id)).toMatchObject({
      status: "requires_payment_method",
      last_payment_error: { code: "card_declined", decline_code: "insufficient_funds" },
    });

    const paid = await client.paymentIntents.confirm(created.id, { payment_method: "pm_card_mastercard" });
    expect(paid).toMatchObject({
      status: "succeeded",
      payment_method: expect.stringMatching(/^pm_[A-Za-z0-9]{24}$/),
      last_payment_error: null,
    });
    expect(paid.payment_method).not.toBe("pm_card_mastercard");
    expect(await ledger()).toHaveLength(1);
  });
});

describe("fault injection", () => {
  it("delays POSTs by latencyMs", async () => {
    const latencyMs = 400;
    await setFaults({ latencyMs });
    const started = performance.now();
    await stripe().paymentIntents.create(VISA);
    // A few ms of slack: libuv timers have millisecond granularity and may fire marginally early.
    expect(performance.now() - started).toBeGreaterThanOrEqual(latencyMs - 5);
    expect((await faults()).stats.delayed).toBe(1);
  });

  it("holds a write's answer for answerLatencyMs after executing it: the ledger and its events have it first", async () => {
    const answerLatencyMs = 400;
    await setFaults({ answerLatencyMs });
    const started = performance.now();
    const pending = stripe().paymentIntents.create(VISA);
    await new Promise((resolve) => setTimeout(resolve, answerLatencyMs / 2));
    // Still unanswered, yet already charged.
    expect((await ledger()).map((pi) => pi.status)).toEqual(["succeeded"]);
    const intent = await pending;
    expect(performance.now() - started).toBeGreaterThanOrEqual(answerLatencyMs - 5);
    expect(intent.status).toBe("succeeded");
    expect((await faults()).stats).toMatchObject({ answersDelayed: 1, delayed: 0, charges: 1 });
  });

  it("refuses every request as Stripe refuses a revoked key (401) or a missing permission (403), until lifted", async () => {
    const client = stripe({ maxNetworkRetries: 0 });
    await setFaults({ refuse: { status: 401 } });
    expect(await rejection(client.paymentIntents.create(VISA))).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    await setFaults({ refuse: { status: 403 } });
    const forbidden = await rejection(client.refunds.list({ limit: 1 }));
    expect(forbidden).toBeInstanceOf(Stripe.errors.StripePermissionError);
    expect(forbidden).toMatchObject({ statusCode: 403, rawType: "invalid_request_error" });
    await setFaults({ refuse: null });
    expect(await ledger()).toHaveLength(0); // nothing was executed while refused
    expect((await client.paymentIntents.create(VISA)).status).toBe("succeeded");
    expect((await faults()).stats).toMatchObject({ refused: 2, charges: 1 });
  });

  it("fails the next requests before they reach the ledger", async () => {
    await setFaults({ failNext: { status: 503, times: 2 } });
    const client = stripe({ maxNetworkRetries: 0 });
    const idempotencyKey = randomUUID();
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await rejection(client.paymentIntents.create(VISA, { idempotencyKey }));
      expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError);
      expect(error).toMatchObject({ statusCode: 503, rawType: "api_error" });
    }
    // Nothing was stored under the key, so this executes rather than replays.
    const intent = await client.paymentIntents.create(VISA, { idempotencyKey });
    expect(replayedHeader(intent)).toBeUndefined();
    expect(await ledger()).toHaveLength(1);
    expect(await faults()).toMatchObject({ failNext: null, stats: { failedInjected: 2, charges: 1 } });
  });

  it.each([
    [500, Stripe.errors.StripeAPIError, "api_error"],
    [429, Stripe.errors.StripeRateLimitError, "invalid_request_error"],
  ] as const)("injects %i with Stripe's error shape", async (status, errorClass, rawType) => {
    await setFaults({ failNext: { status, times: 1 } });
    const error = await rejection(stripe({ maxNetworkRetries: 0 }).paymentIntents.create(VISA));
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toMatchObject({ statusCode: status, rawType });
    if (status === 429) expect(error.code).toBe("rate_limit");
    expect(await ledger()).toEqual([]);
    expect((await faults()).stats.failedInjected).toBe(1);
  });

  it("lets the SDK's own retries absorb a transient 503", async () => {
    await setFaults({ failNext: { status: 503, times: 1 } });
    const client = stripe({ maxNetworkRetries: 2 });
    let attempts = 0;
    client.on("request", () => (attempts += 1)); // one event per HTTP attempt, retries included
    const intent = await client.paymentIntents.create(VISA);
    expect(intent.status).toBe("succeeded");
    expect(attempts).toBe(2);
    expect(await ledger()).toHaveLength(1);
    expect((await faults()).stats).toMatchObject({ failedInjected: 1, charges: 1 });
  });

  it("drops the connection after a charge, which the ledger still holds", async () => {
    await setFaults({ dropAfterCharge: 1 });
    const idempotencyKey = randomUUID();
    // Plain fetch, because stripe-node hides a single dropped connection (see the next test).
    const lost = fetch(`${emulator.url}/v1/payment_intents`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${SECRET_KEY}`,
        "Content-Type": "application/x-www-form-urlencoded",
        "Idempotency-Key": idempotencyKey,
      },
      body: "amount=1999&currency=usd&payment_method=pm_card_visa&confirm=true",
    });
    await expect(lost).rejects.toThrow();
    const [charged, ...others] = await ledger();
    expect(others).toEqual([]);
    expect(charged?.status).toBe("succeeded");
    expect(await faults()).toMatchObject({ dropAfterCharge: 0, stats: { dropped: 1, charges: 1 } });

    // The retry with the same key gets the first result back instead of a second charge.
    const retried = await stripe().paymentIntents.create(VISA, { idempotencyKey });
    expect(retried.id).toBe(charged?.id);
    expect(replayedHeader(retried)).toBe("true");
    expect(await ledger()).toHaveLength(1);
  });

  it("a dropped response is retried by stripe-node itself, even with maxNetworkRetries 0, and replayed", async () => {
    await setFaults({ dropAfterCharge: 1 });
    // stripe-node@23 retries ECONNRESET once regardless of maxNetworkRetries, with the same Idempotency-Key.
    const intent = await stripe({ maxNetworkRetries: 0 }).paymentIntents.create(VISA);
    expect(replayedHeader(intent)).toBe("true");
    expect(await ledger()).toHaveLength(1);
    expect((await faults()).stats).toMatchObject({ dropped: 1, replayed: 1, charges: 1 });
  });

  it("completes a charge whose caller gave up, and replays it to the retry", async () => {
    await setFaults({ latencyMs: 600 });
    const idempotencyKey = randomUUID();
    const impatient = stripe({ maxNetworkRetries: 0, timeoutMs: 150 });
    const error = await rejection(impatient.paymentIntents.create(VISA, { idempotencyKey }));
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);

    await vi.waitFor(async () => expect((await faults()).stats.charges).toBe(1), { timeout: 3000, interval: 25 });
    await setFaults({ latencyMs: 0 });
    const [charged] = await ledger();
    const retried = await stripe().paymentIntents.create(VISA, { idempotencyKey });
    expect(retried.id).toBe(charged?.id);
    expect(replayedHeader(retried)).toBe("true");
    expect(await ledger()).toHaveLength(1);
  });

  it("reset clears the ledger, the keys, the faults and the counters", async () => {
    const idempotencyKey = randomUUID();
    const before = await stripe().paymentIntents.create(VISA, { idempotencyKey });
    await setFaults({ latencyMs: 50, failNext: { status: 500, times: 3 }, dropAfterCharge: 2 });

    const res = await fetch(`${emulator.url}/_emulator/reset`, { method: "POST" });
    expect(res.status).toBe(200);
    const cleared = await faults();
    expect(cleared).toMatchObject({
      latencyMs: 0,
      failNext: null,
      dropAfterCharge: 0,
      storeCreate500: 0,
      rateLimit: null,
      lateExecution: null,
    });
    expect(Object.values(cleared.stats).every((count) => count === 0)).toBe(true);
    expect(await ledger()).toEqual([]);
    const after = await stripe().paymentIntents.create(VISA, { idempotencyKey });
    expect(after.id).not.toBe(before.id);
    expect(replayedHeader(after)).toBeUndefined();
  });

  it("merges fault settings and rejects bad ones without changing anything", async () => {
    await setFaults({ latencyMs: 10 });
    expect(await setFaults({ dropAfterCharge: 2 })).toMatchObject({
      latencyMs: 10,
      dropAfterCharge: 2,
      failNext: null,
    });

    for (const body of [
      "{not json",
      "[]",
      JSON.stringify({ latencyMs: -1 }),
      JSON.stringify({ latencyMs: "slow" }),
      JSON.stringify({ failNext: { status: 404, times: 1 } }),
      JSON.stringify({ failNext: { status: 503, times: 1.5 } }),
      JSON.stringify({ dropAfterCharge: 1, typo: true }),
    ]) {
      const { status, json } = await postFaults(body);
      expect(status, body).toBe(400);
      expect(json, body).toMatchObject({ error: { type: "invalid_request_error", message: expect.any(String) } });
    }
    expect(await faults()).toMatchObject({ latencyMs: 10, dropAfterCharge: 2, failNext: null });
  });

  it("answers unknown routes with a Stripe-shaped 404", async () => {
    for (const [method, path, headers] of [
      ["GET", "/v1/customers", { Authorization: `Bearer ${SECRET_KEY}` }],
      ["DELETE", "/v1/payment_intents", { Authorization: `Bearer ${SECRET_KEY}` }],
      ["GET", "/_emulator/nothing", {}],
      ["GET", "/", {}],
    ] as const) {
      const res = await fetch(`${emulator.url}${path}`, { method, headers });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toMatchObject({
        error: { type: "invalid_request_error", message: expect.stringContaining(path) },
      });
    }
  });
});
