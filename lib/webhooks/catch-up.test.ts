import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { createOwnDatabase, type OwnDatabase } from "@/tests/helpers/own-database";
import { createPrismaClient, engineDatabase } from "../db";
import type { PrismaClient } from "../generated/prisma/client";
import { IdempotencyEngine } from "@checkout/idempotency";
import { createStripeClient } from "../payments/stripe-client";
import { CATCH_UP_OVERLAP_SECONDS, catchUpEvents } from "./catch-up";
import type { WebhookDeps } from "./deps";
import { processDueEvents } from "./process";
import { TEST_IDENTITY } from "@/tests/helpers/identity";

/**
 * The catch-up's bookkeeping, on a real database and the emulator through the
 * real SDK: what it stores, that it stores each event once however often it
 * reads it, and that its cursor only moves forward. A database of its own, so
 * the inbox holds only this file's events.
 */
let database: OwnDatabase;
let prisma: PrismaClient;
let emulator: StripeEmulator;
let deps: WebhookDeps;

beforeAll(async () => {
  database = await createOwnDatabase("catchupcursor");
  prisma = createPrismaClient(database.url);
  emulator = await startStripeEmulator({ port: 0 });
  deps = {
    prisma,
    stripe: createStripeClient({ secretKey: "sk_test_catch_up", apiBase: emulator.url, maxNetworkRetries: 0 }),
    idempotency: new IdempotencyEngine(engineDatabase(prisma), {
      inProgressTtlMs: 60_000,
      retentionHours: 24,
      attemptDeadlineMs: 1_800_000,
    }),
    appOrigin: "http://localhost:3000",
    actionTimeoutMs: 1_800_000,
    identity: TEST_IDENTITY,
    webhookSecret: "whsec_emulator",
    leaseMs: 60_000,
  };
});
afterAll(async () => {
  await emulator.close();
  await prisma.$disconnect();
  await database.drop();
});

const cursor = async () =>
  Number((await prisma.providerCursor.findUniqueOrThrow({ where: { name: "events" } })).createdSeconds);

describe("reading Stripe's event list into the inbox", () => {
  it("stores the handled events once, however often they are read, and moves the cursor forward only", async () => {
    const intent = await deps.stripe.paymentIntents.create({
      amount: 1_800,
      currency: "usd",
      payment_method: "pm_card_visa",
      confirm: true,
      allowed_payment_method_types: ["card"],
    });
    const first = await catchUpEvents(deps);
    expect(first).toEqual({ seen: 2, stored: 2, restored: 0 }); // payment_intent.created and .succeeded
    const rows = await prisma.webhookEvent.findMany({
      select: { type: true, paymentIntentId: true, processedAt: true },
    });
    expect(rows.map((r) => r.type).sort()).toEqual(["payment_intent.created", "payment_intent.succeeded"]);
    expect(rows.every((r) => r.paymentIntentId === intent.id && r.processedAt === null)).toBe(true);
    const after = await cursor();
    expect(after).toBeGreaterThanOrEqual(intent.created);

    // Read again (the overlap, or another instance): nothing new.
    expect(await catchUpEvents(deps)).toEqual({ seen: 2, stored: 0, restored: 0 });
    expect(await prisma.webhookEvent.count()).toBe(2);

    // A cursor ahead of everything reads nothing, and is not moved back.
    const ahead = after + 10 * CATCH_UP_OVERLAP_SECONDS;
    await prisma.providerCursor.update({ where: { name: "events" }, data: { createdSeconds: ahead } });
    expect(await catchUpEvents(deps)).toEqual({ seen: 0, stored: 0, restored: 0 });
    expect(await cursor()).toBe(ahead);
  });

  it("reads a backlog of 5,000 events to its end, the oldest included, paging on from its resume point", async () => {
    await prisma.webhookEvent.deleteMany();
    await prisma.providerCursor.deleteMany();
    const visa = {
      amount: 1_800,
      currency: "usd",
      payment_method: "pm_card_visa",
      confirm: true,
      allowed_payment_method_types: ["card"],
    };
    // Caught up before the outage.
    const before = await deps.stripe.paymentIntents.create(visa);
    await catchUpEvents(deps);
    const resumeAt = await prisma.providerCursor.findUniqueOrThrow({ where: { name: "events" } });
    expect(resumeAt.eventId).toMatch(/^evt_/);
    const caughtUp = await prisma.webhookEvent.count();

    // The outage: 2,500 payments, each a payment_intent.created and a .succeeded.
    const made: string[] = [];
    for (let batch = 0; batch < 100; batch++)
      made.push(
        ...(await Promise.all(Array.from({ length: 25 }, () => deps.stripe.paymentIntents.create(visa)))).map(
          (i) => i.id,
        ),
      );
    const backlog = (await deps.stripe.events.list({ limit: 100, created: { gte: 0 } })).data;
    expect(backlog.length).toBe(100);

    const pass = await catchUpEvents(deps);
    expect(pass.stored).toBe(5_000);
    const stored = new Set(
      (await prisma.webhookEvent.findMany({ select: { paymentIntentId: true } })).map((e) => e.paymentIntentId),
    );
    for (const id of [before.id, ...made]) expect(stored.has(id)).toBe(true);
    expect(stored.has(made[0]!)).toBe(true); // the oldest of the backlog
    expect(await prisma.webhookEvent.count()).toBe(caughtUp + 5_000);
    // The resume point is the newest event: the next pass pages on from it and re-reads only the overlap.
    const newest = (await deps.stripe.events.list({ limit: 1 })).data[0]!;
    expect(await prisma.providerCursor.findUniqueOrThrow({ where: { name: "events" } })).toMatchObject({
      eventId: newest.id,
      createdSeconds: BigInt(newest.created),
    });
    expect((await catchUpEvents(deps)).stored).toBe(0);

    // And every one of them is processed (four instances at once, as the inbox's lease allows).
    const drain = async () => {
      while ((await processDueEvents(deps, { limit: 100 })).processed > 0);
    };
    await Promise.all([drain(), drain(), drain(), drain()]);
    expect(await prisma.webhookEvent.count({ where: { processedAt: null } })).toBe(0);
  }, 600_000);
});
