import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { createOwnDatabase, type OwnDatabase } from "@/tests/helpers/own-database";
import { createPrismaClient, engineDatabase } from "../db";
import type { PrismaClient } from "../generated/prisma/client";
import { IdempotencyEngine } from "@checkout/idempotency";
import { createStripeClient } from "../payments/stripe-client";
import type { WebhookDeps } from "./deps";
import { storeEvent } from "./inbox";
import { MAX_EVENT_AGE_MS, processDueEvents } from "./process";
import { signedMetadata, TEST_IDENTITY } from "@/tests/helpers/identity";

/**
 * Processing without HTTP, on a real database and the emulator: what happens
 * to events that cannot be done — Stripe failing, an order that never comes.
 */
let database: OwnDatabase;
let prisma: PrismaClient;
let emulator: StripeEmulator;
let deps: WebhookDeps;
const logged: Array<{ event: string; fields: Record<string, unknown> }> = [];

beforeAll(async () => {
  database = await createOwnDatabase("webhookprocess");
  prisma = createPrismaClient(database.url);
  emulator = await startStripeEmulator({ port: 0 });
  deps = {
    prisma,
    stripe: createStripeClient({
      secretKey: "sk_test_process",
      apiBase: emulator.url,
      timeoutMs: 5_000,
      maxNetworkRetries: 0,
    }),
    idempotency: new IdempotencyEngine(engineDatabase(prisma), {
      inProgressTtlMs: 60_000,
      retentionHours: 24,
      attemptDeadlineMs: 1_800_000,
    }),
    appOrigin: "http://localhost:3000",
    actionTimeoutMs: 60_000,
    identity: TEST_IDENTITY,
    log: (event, fields) => void logged.push({ event, fields }),
    webhookSecret: "whsec_process_test",
    leaseMs: 60_000,
  };
});
afterAll(async () => {
  await emulator.close();
  await prisma.$disconnect();
  await database.drop();
});

/** An intent of ours (its metadata names an order) whose order this database never gets. */
async function orphanEvent(): Promise<string> {
  const intent = await deps.stripe.paymentIntents.create({
    amount: 1800,
    currency: "usd",
    payment_method: "pm_card_visa",
    allowed_payment_method_types: ["card"],
    metadata: signedMetadata(randomUUID(), randomUUID(), {
      lines: [{ sku: "mug-enamel", quantity: 1, unitPriceCents: 1800 }],
    }),
  });
  const id = `evt_${randomUUID().replaceAll("-", "")}`;
  await storeEvent(prisma, {
    id,
    type: "payment_intent.created",
    paymentIntentId: intent.id,
    payload: JSON.stringify({ id }),
  });
  return id;
}

const row = (id: string) => prisma.webhookEvent.findUniqueOrThrow({ where: { id } });

describe("processing the inbox", () => {
  it("Stripe failing mid-way: the event is kept with the reason and tried again with backoff", async () => {
    const id = await orphanEvent();
    await new EmulatorClient(emulator.url).faults({ failNext: { status: 503, times: 1 } });
    expect(await processDueEvents(deps, { eventId: id })).toEqual({ processed: 0, deferred: 0, failed: 1, expired: 0 });
    const failed = await row(id);
    expect(failed).toMatchObject({ processedAt: null, attempts: 1, lastError: expect.stringContaining("503") });
    expect(failed.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 500); // not due at once
    expect(await processDueEvents(deps, { eventId: id })).toEqual({ processed: 0, deferred: 0, failed: 0, expired: 0 });
  });

  it("an order that never appears: deferred, then given up after three days, logged and counted", async () => {
    const id = await orphanEvent();
    expect(await processDueEvents(deps, { eventId: id })).toMatchObject({ deferred: 1 });
    expect(await row(id)).toMatchObject({
      processedAt: null,
      lastError: expect.stringMatching(/^no order .*, intent requires_confirmation$/),
    });

    // Three days and a minute later (received_at moved back), due again.
    await prisma.webhookEvent.update({
      where: { id },
      data: {
        receivedAt: new Date(Date.now() - MAX_EVENT_AGE_MS - 60_000),
        nextAttemptAt: new Date(Date.now() - 1_000),
      },
    });
    expect(await processDueEvents(deps, { eventId: id })).toMatchObject({ expired: 1 });
    expect(await row(id)).toMatchObject({ outcome: "expired", processedAt: expect.any(Date), attempts: 2 });
    expect(logged.filter((l) => l.fields.eventId === id).map((l) => l.fields.stage)).toEqual(["deferred", "expired"]);
  });
});
