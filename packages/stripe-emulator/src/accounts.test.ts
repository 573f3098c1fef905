import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStripeClient } from "../../../lib/payments/stripe-client";
import type { FaultPatch } from "./fault-patch";
import type { FaultsView } from "./faults";
import { startStripeEmulator, type StripeEmulator } from "./server";
import { VISA } from "./test-support";

// Accounts per API key and the gate, driven by the real stripe-node SDK.

let emulator: StripeEmulator;
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
});
afterAll(async () => {
  await emulator.close();
});

function stripe(secretKey: string, options: { maxNetworkRetries?: number; timeoutMs?: number } = {}): Stripe {
  return createStripeClient({
    secretKey,
    apiBase: emulator.url,
    maxNetworkRetries: options.maxNetworkRetries ?? 0,
    timeoutMs: options.timeoutMs ?? 10_000,
  });
}

/** A control call, for the account `key` names (null: the default account, as the demo and curl call it). */
async function control(key: string | null, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${emulator.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function faults(key: string | null, patch?: FaultPatch): Promise<FaultsView> {
  const { status, json } = await control(key, "/_emulator/faults", patch);
  expect(status, JSON.stringify(json)).toBe(200);
  return json as FaultsView;
}

async function reset(key: string | null): Promise<void> {
  expect((await control(key, "/_emulator/reset", {})).json).toEqual({ ok: true });
}

const newKey = () => `sk_test_${randomUUID().replaceAll("-", "")}`;

/** Polls the account's counters until `check` holds (the SDK's request reached the gate). */
async function until(key: string | null, check: (view: FaultsView) => boolean): Promise<FaultsView> {
  for (let i = 0; i < 200; i++) {
    const view = await faults(key);
    if (check(view)) return view;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the emulator never reached the expected state");
}

describe("accounts per API key", () => {
  it("a key reset into an account of its own has its own ledger, faults and counters; others share the default one", async () => {
    const [a, b, plain] = [newKey(), newKey(), newKey()];
    await reset(null);
    await reset(a);
    await reset(b);
    await faults(a, { failNext: { status: 503, times: 1 } });

    // b and the shared keys never meet a's fault.
    const paidByB = await stripe(b).paymentIntents.create(VISA);
    const paidByPlain = await stripe(plain).paymentIntents.create(VISA);
    const seenByOtherPlain = await stripe("sk_test_emulator").paymentIntents.list({ limit: 100 });
    expect(seenByOtherPlain.data.map((pi) => pi.id)).toEqual([paidByPlain.id]); // one default account, every key
    const failed = await stripe(a)
      .paymentIntents.create(VISA)
      .then(
        () => null,
        (error: Stripe.errors.StripeError) => error,
      );
    expect(failed?.statusCode).toBe(503);
    const paidByA = await stripe(a).paymentIntents.create(VISA);

    expect((await stripe(a).paymentIntents.list({ limit: 100 })).data.map((pi) => pi.id)).toEqual([paidByA.id]);
    expect((await stripe(b).paymentIntents.list({ limit: 100 })).data.map((pi) => pi.id)).toEqual([paidByB.id]);
    expect((await faults(a)).stats).toMatchObject({ failedInjected: 1, charges: 1 });
    expect((await faults(b)).stats).toMatchObject({ failedInjected: 0, charges: 1 });
    expect((await faults(null)).stats).toMatchObject({ failedInjected: 0, charges: 1 });
    // A key without an account of its own names the default one on the controls too.
    expect((await faults(plain)).stats).toMatchObject({ charges: 1 });

    // A reset of one account leaves the others as they were.
    await reset(a);
    expect((await stripe(a).paymentIntents.list()).data).toEqual([]);
    expect((await stripe(b).paymentIntents.list()).data.map((pi) => pi.id)).toEqual([paidByB.id]);
  });

  it("idempotency keys, webhook settings and the 3-D Secure page stay with the account", async () => {
    const [a, b] = [newKey(), newKey()];
    await reset(a);
    await reset(b);
    const idempotencyKey = randomUUID();
    const first = await stripe(a).paymentIntents.create(VISA, { idempotencyKey });
    const other = await stripe(b).paymentIntents.create(VISA, { idempotencyKey });
    expect(other.id).not.toBe(first.id);
    expect(other.lastResponse.headers["idempotent-replayed"]).toBeUndefined();

    expect((await control(a, "/_emulator/webhooks", { retryBaseMs: 7 })).status).toBe(200);
    expect(((await control(a, "/_emulator/webhooks")).json as { retryBaseMs: number }).retryBaseMs).toBe(7);
    expect(((await control(b, "/_emulator/webhooks")).json as { retryBaseMs: number }).retryBaseMs).not.toBe(7);

    const pending = await stripe(b).paymentIntents.create({
      ...VISA,
      payment_method: "pm_card_threeDSecure2Required",
      return_url: "http://shop.invalid/return",
    });
    const page = await fetch(pending.next_action!.redirect_to_url!.url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Complete authentication");
  });

  it("refuses an Authorization on the controls that names no test key, and changes nothing", async () => {
    const { status, json } = await control("sk_live_123", "/_emulator/faults", { latencyMs: 5 });
    expect(status).toBe(401);
    expect(JSON.stringify(json)).toContain("sk_test_");
    expect((await faults(null)).latencyMs).toBe(0);
  });
});

describe("the gate", () => {
  it("holds the SDK's call, key claimed, until released: the charge is still running, then it completes once", async () => {
    const key = newKey();
    await reset(key);
    expect(await faults(key, { gate: true })).toMatchObject({ gate: true, held: 0 });
    const idempotencyKey = randomUUID();
    const charging = stripe(key).paymentIntents.create(VISA, { idempotencyKey });
    await until(key, (view) => view.held === 1);

    // Still running: nothing in the ledger yet, and the same key meets 409 while it is held.
    expect((await stripe(key).paymentIntents.list()).data).toEqual([]);
    const duplicate = await stripe(key)
      .paymentIntents.create(VISA, { idempotencyKey })
      .then(
        () => null,
        (error: Stripe.errors.StripeError) => error,
      );
    expect(duplicate).toMatchObject({ statusCode: 409, code: "idempotency_key_in_use" });

    expect(await faults(key, { gate: false })).toMatchObject({ gate: false, held: 0 });
    const paid = await charging;
    expect(paid.status).toBe("succeeded");
    expect((await stripe(key).paymentIntents.list()).data.map((pi) => pi.id)).toEqual([paid.id]);
    expect((await faults(key)).stats).toMatchObject({ gated: 1, delayed: 1, charges: 1 });
  });

  it("release lets the oldest held calls go one by one while the gate stays closed", async () => {
    const key = newKey();
    await reset(key);
    await faults(key, { gate: true });
    const first = stripe(key).paymentIntents.create({ ...VISA, amount: 100 });
    await until(key, (view) => view.held === 1);
    const second = stripe(key).paymentIntents.create({ ...VISA, amount: 200 });
    await until(key, (view) => view.held === 2);

    expect(await faults(key, { release: 1 })).toMatchObject({ gate: true, held: 1 });
    expect((await first).amount).toBe(100);
    expect((await stripe(key).paymentIntents.list()).data.map((pi) => pi.amount)).toEqual([100]);
    // A third call is held too: the gate is still closed.
    const third = stripe(key).paymentIntents.create({ ...VISA, amount: 300 });
    await until(key, (view) => view.held === 2);

    await faults(key, { gate: false });
    expect([(await second).amount, (await third).amount]).toEqual([200, 300]);
    expect((await faults(key)).stats).toMatchObject({ gated: 3, charges: 3 });
  });

  it("a call held past the SDK's timeout is a connection error to the caller, and executes once released", async () => {
    const key = newKey();
    await reset(key);
    await faults(key, { gate: true });
    const idempotencyKey = randomUUID();
    const error = await stripe(key, { timeoutMs: 200 })
      .paymentIntents.create(VISA, { idempotencyKey })
      .then(
        () => null,
        (e: Stripe.errors.StripeError) => e,
      );
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect((await faults(key)).held).toBe(1);
    await faults(key, { gate: false });
    await until(key, (view) => view.stats.charges === 1);
    const retried = await stripe(key).paymentIntents.create(VISA, { idempotencyKey });
    expect(retried.lastResponse.headers["idempotent-replayed"]).toBe("true");
  });

  it("a reset lets the held calls finish in the old account, never in the new one", async () => {
    const key = newKey();
    await reset(key);
    await faults(key, { gate: true });
    const charging = stripe(key).paymentIntents.create(VISA);
    await until(key, (view) => view.held === 1);
    await reset(key);
    expect((await charging).status).toBe("succeeded");
    expect((await stripe(key).paymentIntents.list()).data).toEqual([]);
    expect(await faults(key)).toMatchObject({ gate: false, held: 0, stats: { charges: 0, gated: 0 } });
  });

  it("rejects a gate or release that is not well formed, naming the field", async () => {
    for (const body of [{ gate: "yes" }, { release: 0 }, { release: 1.5 }]) {
      const { status, json } = await control(null, "/_emulator/faults", body);
      expect(status).toBe(400);
      expect(JSON.stringify(json)).toMatch(/gate must be|release must be/);
    }
    expect((await faults(null)).gate).toBe(false);
  });
});
