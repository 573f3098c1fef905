import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createPrismaClient } from "../db";
import { deleteIdleCustomers } from "./expire";

const prisma = createPrismaClient(inject("databaseUrl"));
afterAll(() => prisma.$disconnect());

const DAY = 86_400_000;
const customer = (ageDays: number) =>
  prisma.customer.create({ data: { createdAt: new Date(Date.now() - ageDays * DAY) }, select: { id: true } });

describe("expiring guest customers", () => {
  it("deletes those who never ordered once their session is past, and keeps every other", async () => {
    const idle = await customer(40);
    const recent = await customer(1);
    const ordered = await customer(40);
    await prisma.order.create({
      data: { customerId: ordered.id, amountCents: 100, currency: "eur", status: "paid" },
    });
    const attempting = await customer(40);
    await prisma.idempotencyKey.create({
      data: {
        subjectId: attempting.id,
        endpoint: "POST /api/checkout",
        key: randomUUID(),
        requestHash: "e".repeat(64),
      },
    });

    const deleted = await deleteIdleCustomers(prisma, { olderThanSeconds: 30 * 86_400 });
    expect(deleted).toBeGreaterThanOrEqual(1);
    const left = await prisma.customer.findMany({
      where: { id: { in: [idle.id, recent.id, ordered.id, attempting.id] } },
      select: { id: true },
    });
    expect(left.map((c) => c.id).sort()).toEqual([recent.id, ordered.id, attempting.id].sort());
  });
});
