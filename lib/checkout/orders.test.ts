import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createPrismaClient, engineDatabase } from "../db";
import {
  deleteExpiredKeys,
  IdempotencyEngine,
  type ClaimResult,
  type KeyScope,
  type Ownership,
} from "@checkout/idempotency";
import { attemptId } from "./attempt-id";
import { createAttemptOrder } from "./orders";
import { CHECKOUT_ENDPOINT } from "./request";

const prisma = createPrismaClient(inject("databaseUrl"));
const options = { inProgressTtlMs: 60_000, retentionHours: 24, attemptDeadlineMs: 1_800_000 };
const engine = new IdempotencyEngine(engineDatabase(prisma), options);
/** Another handle on the database: an owner claimed there is another process's, which this one's engine cannot know. */
const elsewhere = new IdempotencyEngine(engineDatabase(prisma), options);
const HASH = "c".repeat(64);
// A product of this file's own, so changing its price touches no other test.
const SKU = `orders-test-${randomUUID().slice(0, 8)}`;
beforeAll(async () => {
  await prisma.product.create({
    data: { sku: SKU, name: "Test Kettle", description: "orders.test.ts", priceCents: 2500, currency: "usd" },
  });
});
afterAll(async () => {
  await prisma.orderLine.deleteMany({ where: { sku: SKU } });
  await prisma.product.delete({ where: { sku: SKU } });
  await prisma.$disconnect();
});

const items = [
  { sku: SKU, quantity: 2 },
  { sku: "mug-enamel", quantity: 1 },
];
const lines = [
  { sku: "mug-enamel", name: "Enamel Mug", unitPriceCents: 1800, quantity: 1 },
  { sku: SKU, name: "Test Kettle", unitPriceCents: 2500, quantity: 2 },
].sort((a, b) => a.sku.localeCompare(b.sku));
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
const scopeFor = (customerId: string): KeyScope => ({
  subjectId: customerId,
  endpoint: CHECKOUT_ENDPOINT,
  key: randomUUID(),
});
const write = (claim: Ownership, scope: KeyScope, extra: Partial<{ items: typeof items }> = {}) =>
  createAttemptOrder(prisma, {
    owner: claim,
    orderId: attemptId(scope),
    customerId: scope.subjectId,
    items,
    checkoutId: null,
    key: scope.key,
    paymentMethod: "pm_card_visa",
    returnUrl: "http://127.0.0.1:3000/checkout/return?key=k",
    ...extra,
  });

describe("writing an attempt's order in one statement", () => {
  it("prices the cart and writes the customer, the order and its lines for the claim's owner, once per attempt", async () => {
    const customerId = randomUUID(); // no customer row yet: a session that outlived a database reset
    const scope = scopeFor(customerId);
    const first = owner(await engine.claim(scope, HASH));
    const written = await write(first, scope);
    expect(written).toEqual({
      kind: "order",
      order: {
        id: attemptId(scope),
        amountCents: 6800,
        currency: "usd",
        paymentMethod: "pm_card_visa",
        paymentIntentId: null,
        returnUrl: "http://127.0.0.1:3000/checkout/return?key=k",
        receiptEmail: null,
        lines: lines.map(({ sku, quantity, unitPriceCents }) => ({ sku, quantity, unitPriceCents })),
        createdAt: expect.any(Date),
      },
    });
    expect(await prisma.customer.count({ where: { id: customerId } })).toBe(1);
    expect(await storedLines(attemptId(scope))).toEqual(lines);
    expect(
      await prisma.order.findUnique({
        where: { id: attemptId(scope) },
        select: { idempotencyKeyId: true, status: true },
      }),
    ).toEqual({ idempotencyKeyId: first.recordId, status: "pending" });

    // Asked again by the same owner: the same order, nothing added.
    expect(await write(first, scope)).toEqual(written);
    expect(await prisma.order.count({ where: { customerId } })).toBe(1);
    expect(await prisma.orderLine.count({ where: { orderId: attemptId(scope) } })).toBe(2);
  });

  it("gives a retaken attempt the first owner's order and price, and a fenced-out owner nothing", async () => {
    const scope = scopeFor(randomUUID());
    const first = owner(await engine.claim(scope, HASH));
    const written = await write(first, scope);
    await engine.release(first);
    const second = owner(await engine.claim(scope, HASH));
    expect(second).toMatchObject({ attempt: 2, retaken: true });

    // The catalogue's price changed in between: the attempt keeps the price it was claimed at.
    await prisma.product.update({ where: { sku: SKU }, data: { priceCents: 9999 } });
    try {
      expect(await write(second, scope)).toEqual(written);
    } finally {
      await prisma.product.update({ where: { sku: SKU }, data: { priceCents: 2500 } });
    }
    expect(await write(first, scope)).toEqual({ kind: "fenced" });
    expect(await prisma.order.count({ where: { customerId: scope.subjectId } })).toBe(1);
  });

  it("writes nothing for an owner fenced out before its order was written", async () => {
    const scope = scopeFor(randomUUID());
    const first = owner(await engine.claim(scope, HASH));
    await engine.release(first);
    owner(await engine.claim(scope, HASH));
    expect(await write(first, scope)).toEqual({ kind: "fenced" });
    expect(await prisma.order.count({ where: { customerId: scope.subjectId } })).toBe(0);
    expect(await prisma.customer.count({ where: { id: scope.subjectId } })).toBe(0);
  });

  it("refuses a cart with an unknown product, writing nothing", async () => {
    const scope = scopeFor(randomUUID());
    const claim = owner(await engine.claim(scope, HASH));
    const written = await write(claim, scope, {
      items: [
        { sku: "mug-enamel", quantity: 1 },
        { sku: "no-such-thing", quantity: 1 },
      ],
    });
    expect(written).toEqual({
      kind: "invalid",
      issues: [{ path: ["items", 1, "sku"], message: "unknown product no-such-thing" }],
    });
    expect(await prisma.order.count({ where: { customerId: scope.subjectId } })).toBe(0);
    expect(await prisma.customer.count({ where: { id: scope.subjectId } })).toBe(0);
  });

  it("gives the attempt's new claim the order whose claim was lost, as it was", async () => {
    const scope = scopeFor(randomUUID());
    // Its owner was another process's, gone with its record.
    const first = owner(await elsewhere.claim(scope, HASH));
    const written = await write(first, scope);
    // The record is gone (deleted by hand, or cleanup), the order stays.
    await prisma.idempotencyKey.delete({ where: { id: first.recordId } });
    expect(
      await prisma.order.findUnique({ where: { id: attemptId(scope) }, select: { idempotencyKeyId: true } }),
    ).toEqual({ idempotencyKeyId: null });
    const again = owner(await engine.claim(scope, HASH));
    expect(again).toMatchObject({ attempt: 1, retaken: false });
    expect(await write(again, scope)).toEqual(written);
    expect(
      await prisma.order.findUnique({ where: { id: attemptId(scope) }, select: { idempotencyKeyId: true } }),
    ).toEqual({ idempotencyKeyId: again.recordId });
    expect(await storedLines(attemptId(scope))).toEqual(lines);
  });

  it("derives the order's id from the customer, the endpoint and the key alone", () => {
    const scope = scopeFor(randomUUID());
    expect(attemptId(scope)).toBe(attemptId({ ...scope, key: scope.key.toUpperCase() }));
    expect(attemptId(scope)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(attemptId(scope)).not.toBe(attemptId({ ...scope, subjectId: randomUUID() }));
    expect(attemptId(scope)).not.toBe(attemptId({ ...scope, endpoint: "POST /api/other" }));
    expect(attemptId(scope)).not.toBe(attemptId({ ...scope, key: randomUUID() }));
  });
});

describe("an order whose key expired", () => {
  it("is kept by the cleanup, unlinked from its key", async () => {
    const customer = await prisma.customer.create({ data: {} });
    const key = await prisma.idempotencyKey.create({
      data: {
        subjectId: customer.id,
        endpoint: "POST /api/cleanup-order-test",
        key: randomUUID(),
        requestHash: "d".repeat(64),
        status: "completed",
        expiresAt: new Date(Date.now() - 3600_000),
      },
    });
    const order = await prisma.order.create({
      data: { customerId: customer.id, idempotencyKeyId: key.id, amountCents: 100, currency: "usd", status: "paid" },
    });
    await deleteExpiredKeys(engineDatabase(prisma));
    expect(
      await prisma.order.findUnique({ where: { id: order.id }, select: { status: true, idempotencyKeyId: true } }),
    ).toEqual({ status: "paid", idempotencyKeyId: null });
  });
});
