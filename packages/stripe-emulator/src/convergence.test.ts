import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import Stripe from "stripe";
import { describe, expect, it, vi } from "vitest";
import { rejection, SECRET_KEY, useEmulator, VISA } from "./test-support";

const emulator = useEmulator();

/**
 * A raw POST: stripe-node@23 keys every v1 POST itself (RequestSender._defaultIdempotencyKey)
 * and retries a dropped connection, so a request without a key, or a lost
 * response seen as such, needs plain fetch.
 */
function rawPost(path: string, body: string, idempotencyKey?: string): Promise<Response> {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${SECRET_KEY}`,
    "Content-Type": "application/x-www-form-urlencoded",
  };
  if (idempotencyKey !== undefined) headers["Idempotency-Key"] = idempotencyKey;
  return fetch(`${emulator.url()}${path}`, { method: "POST", headers, body });
}

describe("stored 500 and key expiry", () => {
  it("replays a stored create 500 for its key until the key expires, then executes anew", async () => {
    await emulator.setFaults({ storeCreate500: 1 });
    const client = emulator.stripe();
    // Without a key the fault waits: only keyed creates can have a stored answer.
    const unkeyed = await rawPost(
      "/v1/payment_intents",
      "amount=1999&currency=usd&payment_method=pm_card_visa&confirm=true",
    );
    expect(unkeyed.status).toBe(200);
    expect((await emulator.faults()).storeCreate500).toBe(1);

    const idempotencyKey = randomUUID();
    const first = await rejection(client.paymentIntents.create(VISA, { idempotencyKey }));
    expect(first).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(first).toMatchObject({ statusCode: 500, rawType: "api_error" });
    const replayed = await rejection(client.paymentIntents.create(VISA, { idempotencyKey }));
    expect(replayed).toMatchObject({ statusCode: 500 });
    expect(replayed.headers?.["idempotent-replayed"]).toBe("true");
    expect((await client.paymentIntents.list()).data).toHaveLength(1); // the 500 executed nothing
    expect((await emulator.faults()).stats).toMatchObject({ storedCreate500: 1, replayed: 1, charges: 1 });

    await emulator.setFaults({ idempotencyKeyTtlMs: 1 });
    await sleep(5); // past the 1 ms TTL
    const fresh = await client.paymentIntents.create(VISA, { idempotencyKey });
    expect(fresh.status).toBe("succeeded");
    expect(fresh.lastResponse.headers["idempotent-replayed"]).toBeUndefined();
    expect((await emulator.faults()).stats).toMatchObject({ keysExpired: 1, charges: 2 });
  });

  it("keeps keys for 24 hours by default", async () => {
    expect((await emulator.faults()).idempotencyKeyTtlMs).toBe(24 * 60 * 60 * 1000);
  });
});

describe("rate limiting", () => {
  it("answers 429 rate_limit beyond perSecond and counts each", async () => {
    await emulator.setFaults({ rateLimit: { perSecond: 3 } });
    const client = emulator.stripe({ maxNetworkRetries: 0 });
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => client.paymentIntents.list()));
    const limited = results
      .filter((result) => result.status === "rejected")
      .map((result) => (result as PromiseRejectedResult).reason as Stripe.errors.StripeError);
    expect(limited.length).toBeGreaterThanOrEqual(3);
    for (const error of limited) {
      expect(error).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
      expect(error).toMatchObject({ statusCode: 429, code: "rate_limit" });
    }
    expect((await emulator.faults()).stats.rateLimited).toBe(limited.length);
    await emulator.setFaults({ rateLimit: null });
    expect((await client.paymentIntents.list()).object).toBe("list");
  });
});

describe("late execution", () => {
  it("drops the caller at once, charges later, and replays the result to the same key", async () => {
    // Long enough for the retry below to arrive while the key is in flight on a loaded machine.
    await emulator.setFaults({ lateExecution: { delayMs: 2_000, times: 1 } });
    const idempotencyKey = randomUUID();
    await expect(
      rawPost(
        "/v1/payment_intents",
        "amount=1999&currency=usd&payment_method=pm_card_visa&confirm=true",
        idempotencyKey,
      ),
    ).rejects.toThrow();
    expect((await emulator.stripe().paymentIntents.list()).data).toEqual([]); // not yet

    // Meanwhile the key is in flight: a retry is told so instead of charging again.
    const duplicate = await rejection(emulator.stripe().paymentIntents.create(VISA, { idempotencyKey }));
    expect(duplicate).toMatchObject({ statusCode: 409, code: "idempotency_key_in_use" });

    await vi.waitFor(async () => expect((await emulator.faults()).stats.lateExecuted).toBe(1), {
      timeout: 10_000,
      interval: 25,
    });
    const [charged, ...others] = (await emulator.stripe().paymentIntents.list()).data;
    expect(others).toEqual([]);
    expect(charged?.status).toBe("succeeded");
    const retried = await emulator.stripe().paymentIntents.create(VISA, { idempotencyKey });
    expect(retried.id).toBe(charged?.id);
    expect(retried.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(await emulator.faults()).toMatchObject({
      lateExecution: null,
      stats: { lateAnswered: 1, lateExecuted: 1, charges: 1 },
    });
  });

  it("a confirm that runs after the intent was declined finds no payment method and charges nothing", async () => {
    const client = emulator.stripe();
    const intent = await client.paymentIntents.create({
      amount: 700,
      currency: "usd",
      payment_method: "pm_card_chargeDeclined",
    });
    await emulator.setFaults({ lateExecution: { delayMs: 300, times: 1 } });
    await expect(rawPost(`/v1/payment_intents/${intent.id}/confirm`, "", randomUUID())).rejects.toThrow();

    const declined = await rejection(client.paymentIntents.confirm(intent.id, {}, { idempotencyKey: randomUUID() }));
    expect(declined).toMatchObject({ statusCode: 402, code: "card_declined" });
    await vi.waitFor(async () => expect((await emulator.faults()).stats.lateExecuted).toBe(1), {
      timeout: 3000,
      interval: 25,
    });

    const after = await client.paymentIntents.retrieve(intent.id);
    expect(after).toMatchObject({
      status: "requires_payment_method",
      payment_method: null,
      latest_charge: declined.charge,
    });
    expect((await emulator.faults()).stats).toMatchObject({ declines: 1, charges: 0, lateAnswered: 1 });
    const failures = await client.events.list({ type: "payment_intent.payment_failed" });
    expect(failures.data).toHaveLength(1);
  });
});
