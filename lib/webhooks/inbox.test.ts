import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createOwnDatabase, type OwnDatabase } from "@/tests/helpers/own-database";
import { createPrismaClient } from "../db";
import type { PrismaClient } from "../generated/prisma/client";
import {
  claimDueEvents,
  deleteProcessedEvents,
  markProcessed,
  retryLater,
  storeEvent,
  WEBHOOK_RETENTION_DAYS,
} from "./inbox";

/**
 * The inbox against a real PostgreSQL, with real concurrency: a database of
 * its own, because claiming takes whatever is due.
 */
let own: OwnDatabase;
let prisma: PrismaClient;
beforeAll(async () => {
  own = await createOwnDatabase("inboxunit");
  prisma = createPrismaClient(own.url);
});
afterAll(async () => {
  await prisma.$disconnect();
  await own.drop();
});
beforeEach(async () => {
  await prisma.webhookEvent.deleteMany({});
});

const event = (id: string) => ({
  id,
  type: "payment_intent.succeeded",
  paymentIntentId: `pi_${id}`,
  payload: JSON.stringify({ id }),
});

describe("the webhook inbox", () => {
  it("stores an event id once: 20 simultaneous deliveries, one insert", async () => {
    const stored = await Promise.all(Array.from({ length: 20 }, () => storeEvent(prisma, event("evt_same"))));
    expect(stored.filter((s) => s === "inserted")).toHaveLength(1);
    expect(stored.filter((s) => s === "duplicate")).toHaveLength(19);
    expect(await prisma.webhookEvent.count()).toBe(1);
  });

  it.each([
    ["a \\u0000", String.raw`{"id":"evt_nul","note":"a\u0000b"}`],
    ["an unpaired high surrogate", String.raw`{"id":"evt_high","note":"\ud800"}`],
    ["an unpaired low surrogate", String.raw`{"id":"evt_low","note":"x\udc00"}`],
  ])("reports an event whose JSON carries %s as unstorable, and stores nothing", async (_, payload) => {
    expect(() => JSON.parse(payload)).not.toThrow(); // valid JSON, which only jsonb refuses
    const id = (JSON.parse(payload) as { id: string }).id;
    expect(await storeEvent(prisma, { id, type: "payment_intent.succeeded", paymentIntentId: null, payload })).toBe(
      "unstorable",
    );
    expect(await prisma.webhookEvent.count({ where: { id } })).toBe(0);
  });

  it("hands each due event to exactly one of 10 simultaneous workers, and none while leased", async () => {
    for (let i = 0; i < 60; i++) await storeEvent(prisma, event(`evt_${i}`));
    const claims = await Promise.all(
      Array.from({ length: 10 }, () => claimDueEvents(prisma, { leaseMs: 60_000, limit: 10 })),
    );
    const ids = claims.flat().map((e) => e.id);
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
    expect(claims.flat().every((e) => e.attempts === 1)).toBe(true);
    expect(await claimDueEvents(prisma, { leaseMs: 60_000, limit: 100 })).toEqual([]); // all leased
  });

  it("a lease that ran out (its worker died) makes the event due again; processed events never are", async () => {
    await storeEvent(prisma, event("evt_dies"));
    await storeEvent(prisma, event("evt_done"));
    expect(await claimDueEvents(prisma, { leaseMs: 1, limit: 10 })).toHaveLength(2);
    await markProcessed(prisma, "evt_done", "paid");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await claimDueEvents(prisma, { leaseMs: 60_000, limit: 10 });
    expect(again.map((e) => [e.id, e.attempts])).toEqual([["evt_dies", 2]]);
  });

  it("retries later with the reason kept, and only when due", async () => {
    await storeEvent(prisma, event("evt_later"));
    await claimDueEvents(prisma, { leaseMs: 60_000, limit: 10, eventId: "evt_later" });
    await retryLater(prisma, "evt_later", 60_000, "no order yet");
    expect(await claimDueEvents(prisma, { leaseMs: 60_000, limit: 10 })).toEqual([]);
    expect(await prisma.webhookEvent.findUnique({ where: { id: "evt_later" } })).toMatchObject({
      lastError: "no order yet",
      attempts: 1,
      processedAt: null,
    });
  });

  it("forgets processed events after the retention, never unprocessed ones", async () => {
    const old = new Date(Date.now() - (WEBHOOK_RETENTION_DAYS + 1) * 86_400_000);
    await prisma.webhookEvent.createMany({
      data: [
        { id: "evt_old_done", type: "x", payload: {}, processedAt: old, outcome: "paid" },
        { id: "evt_recent_done", type: "x", payload: {}, processedAt: new Date(), outcome: "paid" },
        { id: "evt_old_waiting", type: "x", payload: {}, receivedAt: old },
      ],
    });
    expect(await deleteProcessedEvents(prisma)).toBe(1);
    expect(
      (await prisma.webhookEvent.findMany({ select: { id: true }, orderBy: { id: "asc" } })).map((e) => e.id),
    ).toEqual(["evt_old_waiting", "evt_recent_done"]);
  });
});
