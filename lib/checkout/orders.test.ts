import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createPrismaClient } from "../db";
import { IdempotencyEngine } from "../idempotency/engine";
import type { ClaimResult, Ownership } from "../idempotency/types";
import { createOrder } from "./orders";
import { CHECKOUT_ENDPOINT } from "./request";

const prisma = createPrismaClient(inject("databaseUrl"));
afterAll(() => prisma.$disconnect());
const engine = new IdempotencyEngine(prisma, {
  inProgressTtlMs: 60_000,
  retentionHours: 24,
  attemptDeadlineMs: 1_800_000,
});
const HASH = "c".repeat(64);
const lines = [
  { sku: "tee-classic", name: "Classic Tee", unitPriceCents: 2500, quantity: 2 },
  { sku: "mug-enamel", name: "Enamel Mug", unitPriceCents: 1800, quantity: 1 },
];
const priced = { amountCents: 6800, currency: "usd", paymentMethod: "pm_card_visa", lines };
const owner = (r: ClaimResult): Ownership => {
  if (r.kind !== "claimed") throw new Error(`expected claimed, got ${r.kind}`);
  return r.owner;
};
const storedLines = (orderId: string) =>
  prisma.orderLine.findMany({
    where: { orderId },
    select: { sku: true, name: true, unitPriceCents: true, quantity: true },
    orderBy: { sku: "asc" },
  });

describe("writing an attempt's order in one statement", () => {
  it("writes the customer, the order and its lines for the claim's owner, once per attempt", async () => {
    const customerId = randomUUID(); // no customer row yet: a session that outlived a database reset
    const first = owner(
      await engine.claim({ subjectId: customerId, endpoint: CHECKOUT_ENDPOINT, key: randomUUID() }, HASH),
    );
    const order = await createOrder(prisma, { owner: first, customerId, ...priced });
    expect(order).toEqual({
      id: expect.any(String),
      amountCents: 6800,
      currency: "usd",
      paymentMethod: "pm_card_visa",
      paymentIntentId: null,
    });
    expect(await prisma.customer.count({ where: { id: customerId } })).toBe(1);
    expect(await storedLines(order!.id)).toEqual([...lines].sort((a, b) => a.sku.localeCompare(b.sku)));
    expect(
      await prisma.order.findUnique({ where: { id: order!.id }, select: { idempotencyKeyId: true, status: true } }),
    ).toEqual({ idempotencyKeyId: first.recordId, status: "pending" });

    // Asked again by the same owner: the same order, nothing added.
    expect(await createOrder(prisma, { owner: first, customerId, ...priced })).toEqual(order);
    expect(await prisma.order.count({ where: { customerId } })).toBe(1);
    expect(await prisma.orderLine.count({ where: { orderId: order!.id } })).toBe(2);
  });

  it("gives a retaken attempt the first owner's order and price, and a fenced-out owner nothing", async () => {
    const customerId = randomUUID();
    const scope = { subjectId: customerId, endpoint: CHECKOUT_ENDPOINT, key: randomUUID() };
    const first = owner(await engine.claim(scope, HASH));
    const order = await createOrder(prisma, { owner: first, customerId, ...priced });
    await engine.release(first);
    const second = owner(await engine.claim(scope, HASH));
    expect(second).toMatchObject({ attempt: 2, retaken: true });

    // The catalogue's price changed in between: the attempt keeps the price it was claimed at.
    expect(await createOrder(prisma, { owner: second, customerId, ...priced, amountCents: 9999 })).toEqual(order);
    expect(await createOrder(prisma, { owner: first, customerId, ...priced })).toBeNull();
    expect(await prisma.order.count({ where: { customerId } })).toBe(1);
  });

  it("writes nothing for an owner fenced out before its order was written", async () => {
    const customerId = randomUUID();
    const scope = { subjectId: customerId, endpoint: CHECKOUT_ENDPOINT, key: randomUUID() };
    const first = owner(await engine.claim(scope, HASH));
    await engine.release(first);
    owner(await engine.claim(scope, HASH));
    expect(await createOrder(prisma, { owner: first, customerId, ...priced })).toBeNull();
    expect(await prisma.order.count({ where: { customerId } })).toBe(0);
    expect(await prisma.customer.count({ where: { id: customerId } })).toBe(0);
  });

  it("writes a new order on every call without an owner (the lab's naive checkout)", async () => {
    const customerId = randomUUID();
    const a = await createOrder(prisma, { owner: null, customerId, ...priced });
    const b = await createOrder(prisma, { owner: null, customerId, ...priced });
    expect(a!.id).not.toBe(b!.id);
    expect(await prisma.order.count({ where: { customerId, idempotencyKeyId: null } })).toBe(2);
    expect(await storedLines(b!.id)).toHaveLength(2);
  });
});
