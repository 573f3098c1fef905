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

  it("finds them by an index on created_at, not by reading every customer", async () => {
    // The sweep's own select. The table is small here, so the planner is told to avoid a sequential scan
    // wherever another plan exists: without the index there is none.
    const plan = await prisma.$transaction(async (tx) => {
      await tx.$executeRaw`set local enable_seqscan = off`;
      return tx.$queryRaw<Array<{ "QUERY PLAN": string }>>`
        explain select c.id from customers c
                 where c.created_at < now() - interval '30 days'
                   and not exists (select 1 from orders o where o.customer_id = c.id)
                   and not exists (select 1 from idempotency_keys k where k.subject_id = c.id::text)
                 limit 1000 for update skip locked`;
    });
    expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toMatch(/Scan (using|on) customers_created_at_idx/);
  });
});
