import type { PrismaClient } from "../generated/prisma/client";
import type { Transaction } from "../idempotency/engine";
import type { PricedLine } from "./price-cart";

/** Order persistence for checkout: one pending order per claimed attempt. */
export interface PendingOrder {
  id: string;
  amountCents: number;
  currency: string;
  paymentMethod: string | null;
  paymentIntentId: string | null;
}

const pendingSelect = { id: true, amountCents: true, currency: true, paymentMethod: true, paymentIntentId: true } as const;

/** The attempt's order, created on first use. A retake finds the first owner's order and its price. */
export async function findOrCreateOrder(
  tx: Transaction,
  input: {
    idempotencyKeyId: string;
    customerId: string;
    amountCents: number;
    currency: string;
    paymentMethod: string;
    lines: PricedLine[];
  },
): Promise<PendingOrder> {
  const existing = await tx.order.findUnique({ where: { idempotencyKeyId: input.idempotencyKeyId }, select: pendingSelect });
  if (existing) return existing;
  // A session outlives a database reset in development; the signed cookie is proof enough.
  await tx.customer.upsert({ where: { id: input.customerId }, create: { id: input.customerId }, update: {} });
  return tx.order.create({
    data: {
      customerId: input.customerId,
      idempotencyKeyId: input.idempotencyKeyId,
      amountCents: input.amountCents,
      currency: input.currency,
      paymentMethod: input.paymentMethod,
      lines: { create: input.lines },
    },
    select: pendingSelect,
  });
}

/** The order an attempt created, if its owner got that far. */
export function findAttemptOrder(prisma: PrismaClient, idempotencyKeyId: string): Promise<PendingOrder | null> {
  return prisma.order.findUnique({ where: { idempotencyKeyId }, select: pendingSelect });
}

export async function recordPaymentIntent(prisma: PrismaClient, orderId: string, paymentIntentId: string): Promise<void> {
  // Every owner of one attempt gets the same PaymentIntent back from Stripe, so
  // writing it more than once writes the same value.
  await prisma.order.updateMany({ where: { id: orderId, paymentIntentId: null }, data: { paymentIntentId } });
}

export async function markOrder(
  tx: Transaction,
  orderId: string,
  outcome: { status: "paid" | "failed"; paymentIntentId: string | null; declineCode?: string },
): Promise<void> {
  await tx.order.update({
    where: { id: orderId },
    data: { status: outcome.status, paymentIntentId: outcome.paymentIntentId ?? undefined, declineCode: outcome.declineCode ?? null },
  });
}

export interface OrderView {
  id: string;
  status: "pending" | "paid" | "failed";
  amountCents: number;
  currency: string;
  paymentIntentId: string | null;
  declineCode: string | null;
  createdAt: Date;
  lines: Array<{ sku: string; name: string; unitPriceCents: number; quantity: number }>;
}

const viewSelect = {
  id: true, status: true, amountCents: true, currency: true, paymentIntentId: true, declineCode: true, createdAt: true,
  lines: { select: { sku: true, name: true, unitPriceCents: true, quantity: true }, orderBy: { name: "asc" } },
} as const;

/** A customer's orders, newest first. */
export function listOrders(prisma: PrismaClient, customerId: string): Promise<OrderView[]> {
  return prisma.order.findMany({ where: { customerId }, orderBy: { createdAt: "desc" }, select: viewSelect, take: 100 });
}

export function findOrder(prisma: PrismaClient, customerId: string, orderId: string): Promise<OrderView | null> {
  return prisma.order.findFirst({ where: { id: orderId, customerId }, select: viewSelect });
}
