import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createPrismaClient } from "@/lib/db";
import { writeNaiveOrder } from "./naive-checkout";

const prisma = createPrismaClient(inject("databaseUrl"));
afterAll(() => prisma.$disconnect());

const cart = {
  amountCents: 6800,
  currency: "usd",
  lines: [
    { sku: "tee-classic", name: "Classic Tee", unitPriceCents: 2500, quantity: 2 },
    { sku: "mug-enamel", name: "Enamel Mug", unitPriceCents: 1800, quantity: 1 },
  ],
};

describe("the lab's naive order write", () => {
  it("writes a new order on every call, belonging to no attempt", async () => {
    const customerId = randomUUID();
    const a = await writeNaiveOrder(prisma, customerId, "pm_card_visa", cart);
    const b = await writeNaiveOrder(prisma, customerId, "pm_card_visa", cart);
    expect(a.id).not.toBe(b.id);
    expect(await prisma.order.count({ where: { customerId, idempotencyKeyId: null } })).toBe(2);
    expect(await prisma.orderLine.count({ where: { orderId: b.id } })).toBe(2);
  });
});
