import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { checkout, type CheckoutDeps } from "@/lib/checkout/checkout";
import { createPrismaClient, engineDatabase } from "@/lib/db";
import { IdempotencyEngine } from "@checkout/idempotency";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { TestDb } from "./helpers/db";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { cart, waitFor } from "./helpers/shopper";
import { TEST_IDENTITY } from "@/tests/helpers/identity";

/**
 * The fence at the use-case level (the engine-level test is in
 * packages/idempotency/src/engine.test.ts): an owner presumed dead, whose claim was
 * retaken, comes back late with a successful charge. Its outcome write must
 * be refused, and the payment must still converge on that one charge.
 *
 * In the app the in-progress TTL is validated to outlive the Stripe client's
 * worst case, so this takes an engine built directly with a TTL (1 s) shorter
 * than the provider's latency (3 s): exactly the misconfiguration the fence
 * exists to survive.
 */
const TTL_MS = 1_000;
const LATENCY_MS = 3_000;

let server: StripeEmulator;
let emulator: EmulatorClient;
const prisma = createPrismaClient(inject("databaseUrl"));
const db = new TestDb();
let deps: CheckoutDeps;

beforeAll(async () => {
  server = await startStripeEmulator({ port: 0 });
  emulator = new EmulatorClient(server.url);
  deps = {
    prisma,
    stripe: createStripeClient({
      secretKey: "sk_test_stale_owner",
      apiBase: server.url,
      timeoutMs: 10_000,
      maxNetworkRetries: 0,
    }),
    idempotency: new IdempotencyEngine(engineDatabase(prisma), {
      inProgressTtlMs: TTL_MS,
      retentionHours: 24,
      attemptDeadlineMs: 1_800_000,
    }),
    appOrigin: "http://localhost:3000",
    actionTimeoutMs: 1_800_000,
    identity: TEST_IDENTITY,
  };
});
afterAll(async () => {
  await server?.close();
  await prisma.$disconnect();
  await db.close();
});

describe("an owner presumed dead who comes back late from its charge", () => {
  it("has its outcome write fenced out, and the next retry converges on that one charge", async () => {
    const customerId = randomUUID();
    const key = randomUUID();
    const input = { customerId, key, body: cart() };

    await emulator.faults({ latencyMs: LATENCY_MS });
    const stale = checkout(deps, input); // owner 1: its create-and-confirm sleeps 3 s at the provider
    await waitFor("owner 1's PaymentIntent to be in flight", async () => (await emulator.stats()).delayed >= 1);
    // Presumed dead: its claim aged past the TTL by the database's clock, as the TTL is judged.
    expect((await db.ageAttempt(customerId, key, TTL_MS + 200)).lock_age_ms).toBeGreaterThan(TTL_MS);

    // Owner 2 retakes the expired claim. Owner 1's call is still running
    // under the same Stripe key (409 in use), and the search finds no intent
    // yet, so owner 2 learns nothing and gives up.
    const usurper = await checkout(deps, input);
    expect(usurper).toEqual({ kind: "unavailable", retryAfterSeconds: expect.any(Number) });
    expect(await db.record(customerId, key)).toMatchObject({ status: "in_progress", attempts: 2 });
    expect(await emulator.stats()).toMatchObject({ delayed: 1, charges: 0 }); // owner 2's call executed nothing

    // Owner 1 wakes up charged. Its outcome write is fenced: refused, so it answers as a duplicate would.
    await emulator.faults({ latencyMs: 0 });
    const late = await stale;
    expect(late).toEqual({ kind: "in_progress", retryAfterSeconds: expect.any(Number) }); // not its own answer
    expect(await emulator.stats()).toMatchObject({ charges: 1 });
    const record = await db.record(customerId, key);
    expect(record).toMatchObject({ status: "in_progress", response_status: null });
    const [order] = await db.ordersOf(customerId);
    expect(order).toMatchObject({ status: "pending", payment_intent_id: null });

    // The shopper's next retry retakes the claim and gets the same PaymentIntent back: charged once.
    const retry = await checkout(deps, input);
    expect(retry).toMatchObject({ kind: "response", replayed: false, response: { statusCode: 201 } });
    expect(await db.record(customerId, key)).toMatchObject({ status: "completed", attempts: 3 });
    expect(await emulator.stats()).toMatchObject({ charges: 1, replayed: 1 });
    const ledger = await emulator.ledger();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ status: "succeeded" });
    expect((await db.ordersOf(customerId))[0]).toMatchObject({ status: "paid", payment_intent_id: ledger[0]!.id });
  });
});
