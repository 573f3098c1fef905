import type { PrismaClient } from "../generated/prisma/client";
import { isUuid } from "../uuid";
import type { AuditWindow } from "./findings";

/** The shop's side of the audit: orders, attempts and inbox events, each read by an index, bounded by the window. */
export interface ShopOrder {
  id: string;
  customerId: string;
  status: "pending" | "processing" | "paid" | "failed";
  amountCents: number;
  currency: string;
  paymentIntentId: string | null;
  refundedAt: Date | null;
  refundFailedAt: Date | null;
  /** The attempt's state; null once retention removed its record. */
  attemptStatus: "in_progress" | "completed" | "failed" | null;
}

const ORDER = {
  id: true,
  customerId: true,
  status: true,
  amountCents: true,
  currency: true,
  paymentIntentId: true,
  refundedAt: true,
  refundFailedAt: true,
  idempotencyKey: { select: { status: true } },
} as const;
const BATCH = 1_000;

type Row = Omit<ShopOrder, "attemptStatus"> & { idempotencyKey: { status: ShopOrder["attemptStatus"] } | null };
const shopOrder = ({ idempotencyKey, ...order }: Row): ShopOrder => ({
  ...order,
  attemptStatus: idempotencyKey?.status ?? null,
});

export async function paidOrdersCreated(prisma: PrismaClient, window: AuditWindow): Promise<ShopOrder[]> {
  const rows = await prisma.order.findMany({
    where: { status: "paid", createdAt: { gte: window.from, lte: window.to } },
    select: ORDER,
  });
  return rows.map(shopOrder);
}

/** The orders these intents name or are recorded on, in batches. */
export async function ordersOf(
  prisma: PrismaClient,
  ids: { orderIds: string[]; paymentIntentIds: string[] },
): Promise<ShopOrder[]> {
  const orderIds = [...new Set(ids.orderIds.filter(isUuid).map((id) => id.toLowerCase()))];
  const found: ShopOrder[] = [];
  for (let i = 0; i < Math.max(orderIds.length, ids.paymentIntentIds.length); i += BATCH) {
    const rows = await prisma.order.findMany({
      where: {
        OR: [
          { id: { in: orderIds.slice(i, i + BATCH) } },
          { paymentIntentId: { in: ids.paymentIntentIds.slice(i, i + BATCH) } },
        ],
      },
      select: ORDER,
    });
    found.push(...rows.map(shopOrder));
  }
  return found;
}

/** Attempts begun in the window, before `begunBefore` (their deadline has passed), still in progress. */
export async function stuckAttempts(prisma: PrismaClient, window: AuditWindow, begunBefore: Date) {
  const rows = await prisma.idempotencyKey.findMany({
    where: {
      status: "in_progress",
      createdAt: { gte: window.from, lte: window.to < begunBefore ? window.to : begunBefore },
    },
    select: {
      id: true,
      key: true,
      subjectId: true,
      createdAt: true,
      order: { select: { id: true, paymentIntentId: true } },
    },
  });
  return rows.map(({ order, ...row }) => ({
    ...row,
    orderId: order?.id ?? null,
    paymentIntentId: order?.paymentIntentId ?? null,
  }));
}

/** Inbox events received in the window and still unprocessed after `attempts` tries. */
export function stuckEvents(prisma: PrismaClient, window: AuditWindow, attempts: number) {
  return prisma.webhookEvent.findMany({
    where: { processedAt: null, attempts: { gte: attempts }, receivedAt: { gte: window.from, lte: window.to } },
    select: { id: true, type: true, paymentIntentId: true, attempts: true, lastError: true },
  });
}
