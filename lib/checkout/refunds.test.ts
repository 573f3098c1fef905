import { afterAll, describe, expect, inject, it } from "vitest";
import { createPrismaClient } from "../db";
import { recordPartialRefund, recordRefund, recordRefundFailure, refundedAmount, refundedInFull } from "./refunds";

/** What an order says about its refund, as Stripe's news of it arrives in any order, any number of times. */
const prisma = createPrismaClient(inject("databaseUrl"));
afterAll(async () => {
  await prisma.$disconnect();
});

async function order() {
  const customer = await prisma.customer.create({ data: {} });
  return prisma.order.create({
    data: { customerId: customer.id, amountCents: 1800, currency: "usd", status: "failed" },
    select: { id: true },
  });
}

const refundOf = (id: string) =>
  prisma.order.findUniqueOrThrow({
    where: { id },
    select: { refundedAt: true, refundId: true, refundReason: true, refundFailedAt: true, refundFailure: true },
  });
const failure = { failureReason: "expired_or_canceled_card" };

describe("a refund that fails after Stripe accepted it", () => {
  it("is no longer shown refunded, is told once, and its replays never make it refunded again", async () => {
    const { id } = await order();
    expect(await recordRefund(prisma, { id }, { id: "re_a", reason: "late_success", refundedCents: 1800 })).toBe(true);
    expect(await recordRefundFailure(prisma, { id }, { id: "re_a", ...failure })).toBe(true);
    expect(await refundOf(id)).toMatchObject({
      refundedAt: null,
      refundId: "re_a",
      refundReason: "late_success",
      refundFailedAt: expect.any(Date),
      refundFailure: "expired_or_canceled_card",
    });
    expect(await recordRefundFailure(prisma, { id }, { id: "re_a", ...failure })).toBe(false);
    // Stripe replays the refund for its key, and its older news arrives late: neither makes it refunded.
    expect(await recordRefund(prisma, { id }, { id: "re_a", reason: "late_success", refundedCents: 1800 })).toBe(false);
    expect(await recordRefund(prisma, { id }, { id: "re_a", reason: "provider", refundedCents: 1800 })).toBe(false);
    expect(await refundOf(id)).toMatchObject({ refundedAt: null, refundFailedAt: expect.any(Date) });
  });

  it("is lifted by another refund of the payment that goes through (an operator's)", async () => {
    const { id } = await order();
    await recordRefund(prisma, { id }, { id: "re_a", reason: "late_success", refundedCents: 1800 });
    await recordRefundFailure(prisma, { id }, { id: "re_a", ...failure });
    expect(await recordRefund(prisma, { id }, { id: "re_b", reason: "provider", refundedCents: 1800 })).toBe(true);
    expect(await refundOf(id)).toMatchObject({
      refundedAt: expect.any(Date),
      refundId: "re_b",
      refundReason: "provider",
      refundFailedAt: null,
      refundFailure: null,
    });
  });

  it("of another refund than the order's changes nothing: the order's own went through", async () => {
    const { id } = await order();
    await recordRefund(prisma, { id }, { id: "re_a", reason: "provider", refundedCents: 1800 });
    expect(await recordRefundFailure(prisma, { id }, { id: "re_other", ...failure })).toBe(false);
    expect(await refundOf(id)).toMatchObject({ refundedAt: expect.any(Date), refundId: "re_a", refundFailedAt: null });
  });

  it("reported before the order knew the refund: recorded as Stripe's, and the app's own record does not undo it", async () => {
    const { id } = await order();
    expect(await recordRefundFailure(prisma, { id }, { id: "re_a", ...failure })).toBe(true);
    expect(await refundOf(id)).toMatchObject({ refundedAt: null, refundReason: "provider", refundId: "re_a" });
    expect(await recordRefund(prisma, { id }, { id: "re_a", reason: "late_success", refundedCents: 1800 })).toBe(false);
    expect(await refundOf(id)).toMatchObject({ refundedAt: null, refundFailedAt: expect.any(Date) });
  });
});

describe("a partial refund", () => {
  it("records the amount and leaves the order paid; refunds reaching the charge make it refunded in full", async () => {
    const customer = await prisma.customer.create({ data: {} });
    const { id } = await prisma.order.create({
      data: { customerId: customer.id, amountCents: 1800, currency: "usd", status: "paid" },
      select: { id: true },
    });
    expect(refundedInFull(100, 1800)).toBe(false);
    expect(await recordPartialRefund(prisma, { id }, 100)).toBe(true);
    expect(await recordPartialRefund(prisma, { id }, 100)).toBe(false); // the same news again
    const partial = await prisma.order.findUniqueOrThrow({
      where: { id },
      select: { status: true, refundedAt: true, refundedCents: true },
    });
    expect(partial).toEqual({ status: "paid", refundedAt: null, refundedCents: 100 });
    expect(refundedInFull(1800, 1800)).toBe(true);
    expect(await recordRefund(prisma, { id }, { id: "re_rest", reason: "provider", refundedCents: 1800 })).toBe(true);
    expect(await prisma.order.findUniqueOrThrow({ where: { id }, select: { refundedCents: true } })).toEqual({
      refundedCents: 1800,
    });
    expect(
      refundedAmount([
        { amount: 100, status: "succeeded" },
        { amount: 500, status: "failed" },
        { amount: 200, status: "pending" },
      ]),
    ).toBe(300);
  });
});
