import { randomUUID } from "node:crypto";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { createPrismaClient } from "../db";
import { deleteExpiredKeys } from "./cleanup";

const prisma = createPrismaClient(inject("databaseUrl"));
afterAll(() => prisma.$disconnect());

const ENDPOINT = "POST /api/cleanup-test";
const HOUR = 3600_000;

async function insertKeys(
  n: number,
  fields: { status: "in_progress" | "completed" | "failed"; expiresAt: Date | null },
) {
  await prisma.idempotencyKey.createMany({
    data: Array.from({ length: n }, () => ({
      subjectId: "cleanup-test",
      endpoint: ENDPOINT,
      key: randomUUID(),
      requestHash: "c".repeat(64),
      ...fields,
    })),
  });
}
const remaining = () => prisma.idempotencyKey.groupBy({ by: ["status"], where: { endpoint: ENDPOINT }, _count: true });

beforeEach(async () => {
  // Other test files' records expire a day from now; only this file's are in the past.
  await prisma.idempotencyKey.deleteMany({ where: { endpoint: ENDPOINT } });
});

describe("cleanup of expired keys", () => {
  it("deletes exactly the expired finished records, in bounded batches", async () => {
    await insertKeys(250, { status: "completed", expiresAt: new Date(Date.now() - HOUR) });
    await insertKeys(30, { status: "failed", expiresAt: new Date(Date.now() - HOUR) });
    await insertKeys(40, { status: "completed", expiresAt: new Date(Date.now() + HOUR) });
    await insertKeys(5, { status: "in_progress", expiresAt: null });

    const pauses: number[] = [];
    const result = await deleteExpiredKeys(prisma, { batchSize: 100, rest: async (ms) => void pauses.push(ms) });
    expect(result).toEqual({ deleted: 280, batches: 3 });
    // It rests between batches, as long as each batch took (restRatio 1), and not after the last.
    expect(pauses).toHaveLength(2);
    expect(pauses.every((ms) => ms > 0)).toBe(true);
    const left = Object.fromEntries((await remaining()).map((g) => [g.status, g._count]));
    expect(left).toEqual({ completed: 40, in_progress: 5 });
  });

  it("keeps an order whose key expired, unlinking it", async () => {
    const customer = await prisma.customer.create({ data: {} });
    const key = await prisma.idempotencyKey.create({
      data: {
        subjectId: customer.id,
        endpoint: ENDPOINT,
        key: randomUUID(),
        requestHash: "d".repeat(64),
        status: "completed",
        expiresAt: new Date(Date.now() - HOUR),
      },
    });
    const order = await prisma.order.create({
      data: { customerId: customer.id, idempotencyKeyId: key.id, amountCents: 100, currency: "usd", status: "paid" },
    });
    await deleteExpiredKeys(prisma);
    expect(
      await prisma.order.findUnique({ where: { id: order.id }, select: { status: true, idempotencyKeyId: true } }),
    ).toEqual({ status: "paid", idempotencyKeyId: null });
  });

  it("shares the work between two cleaners running at once", async () => {
    await insertKeys(600, { status: "completed", expiresAt: new Date(Date.now() - HOUR) });
    const [a, b] = await Promise.all([
      deleteExpiredKeys(prisma, { batchSize: 50 }),
      deleteExpiredKeys(prisma, { batchSize: 50 }),
    ]);
    expect(a.deleted + b.deleted).toBe(600);
    expect(await remaining()).toEqual([]);
  });

  it("rests between batches, not after the last, and not at all with restRatio 0", async () => {
    await insertKeys(30, { status: "completed", expiresAt: new Date(Date.now() - HOUR) });
    const pauses: number[] = [];
    expect(
      await deleteExpiredKeys(prisma, { batchSize: 10, restRatio: 3, rest: async (ms) => void pauses.push(ms) }),
    ).toEqual({ deleted: 30, batches: 4 });
    expect(pauses).toHaveLength(3);
    expect(pauses.every((ms) => ms > 0)).toBe(true);

    await insertKeys(30, { status: "completed", expiresAt: new Date(Date.now() - HOUR) });
    const none: number[] = [];
    await deleteExpiredKeys(prisma, { batchSize: 10, restRatio: 0, rest: async (ms) => void none.push(ms) });
    expect(none).toEqual([]);
  });

  it("stops after maxBatches", async () => {
    await insertKeys(30, { status: "completed", expiresAt: new Date(Date.now() - HOUR) });
    expect(await deleteExpiredKeys(prisma, { batchSize: 10, maxBatches: 2 })).toEqual({ deleted: 20, batches: 2 });
  });
});
