import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createPrismaClient } from "../db";
import { deleteStaleAdmissionCounters } from "./admission-cleanup";

const prisma = createPrismaClient(inject("databaseUrl"));
afterAll(() => prisma.$disconnect());

describe("the admission counters' cleanup", () => {
  it("deletes rows of windows long past, and keeps the current window's", async () => {
    const bucket = `cleanup-${randomUUID()}`;
    const row = (daysAgo: number, shard: number) => ({
      rule: "checkout_per_address",
      bucket,
      windowStart: new Date(Date.now() - daysAgo * 86_400_000),
      shard,
      hits: 1,
    });
    await prisma.admissionCounter.createMany({ data: [row(3, 0), row(3, 1), row(0, 0)] });
    expect(await deleteStaleAdmissionCounters(prisma, { batchSize: 1 })).toBeGreaterThanOrEqual(2);
    const left = await prisma.admissionCounter.findMany({ where: { bucket }, select: { shard: true } });
    expect(left).toEqual([{ shard: 0 }]);
  });
});
