import { Prisma, type PrismaClient } from "../generated/prisma/client";
import { heldBy, type OutcomeEffect } from "../idempotency/engine";
import type { Ownership } from "../idempotency/types";
import type { PricedLine } from "./price-cart";

/** Order persistence for checkout: one pending order per claimed attempt. */
export interface PendingOrder {
  id: string;
  amountCents: number;
  currency: string;
  paymentMethod: string | null;
  paymentIntentId: string | null;
}

const pendingSelect = {
  id: true,
  amountCents: true,
  currency: true,
  paymentMethod: true,
  paymentIntentId: true,
} as const;

/**
 * Writes a pending order and its lines in one statement (atomic without a
 * transaction, one round trip), creating the customer row if a session
 * outlived a database reset (the signed cookie is proof enough).
 *
 * With `owner`, the order belongs to that claimed attempt: it is written only
 * while the claim is still the owner's (null once fenced out), at most once
 * per attempt, and a retaken attempt gets the first owner's order — and price
 * — back. Without, it is a plain order (the lab's naive checkout).
 */
export async function createOrder(
  prisma: PrismaClient,
  input: {
    owner: Ownership | null;
    customerId: string;
    amountCents: number;
    currency: string;
    paymentMethod: string;
    lines: PricedLine[];
  },
): Promise<PendingOrder | null> {
  const owner = input.owner ? heldBy(input.owner) : Prisma.sql`owner as (select null::uuid as id)`;
  const rows = await prisma.$queryRaw<PendingOrder[]>`
    with ${owner},
    customer as (
      insert into customers (id) select ${input.customerId}::uuid from owner
      on conflict (id) do nothing
    ),
    created as (
      insert into orders (customer_id, idempotency_key_id, amount_cents, currency, payment_method)
      select ${input.customerId}::uuid, owner.id, ${input.amountCents}, ${input.currency}, ${input.paymentMethod} from owner
      on conflict (idempotency_key_id) do nothing
      returning ${pendingColumns("orders")}
    ),
    lines as (
      insert into order_lines (order_id, sku, name, unit_price_cents, quantity)
      select created.id, line.sku, line.name, line.unit_price_cents, line.quantity
        from created,
             jsonb_to_recordset(${JSON.stringify(input.lines.map(toRow))}::jsonb)
               as line(sku text, name text, unit_price_cents int, quantity int)
    )
    select * from created
    union all
    select ${pendingColumns("existing")} from orders existing join owner on existing.idempotency_key_id = owner.id
     where not exists (select 1 from created)`;
  return rows[0] ?? null;
}

const pendingColumns = (table: string) =>
  Prisma.raw(
    `${table}.id, ${table}.amount_cents as "amountCents", ${table}.currency, ` +
      `${table}.payment_method as "paymentMethod", ${table}.payment_intent_id as "paymentIntentId"`,
  );

const toRow = (line: PricedLine) => ({
  sku: line.sku,
  name: line.name,
  unit_price_cents: line.unitPriceCents,
  quantity: line.quantity,
});

/** The order an attempt created, if its owner got that far. */
export function findAttemptOrder(prisma: PrismaClient, idempotencyKeyId: string): Promise<PendingOrder | null> {
  return prisma.order.findUnique({ where: { idempotencyKeyId }, select: pendingSelect });
}

/**
 * Records the attempt's PaymentIntent on its order while `owner` holds the
 * claim, renewing its lock for the confirm that follows (one statement).
 * Every owner of one attempt gets the same PaymentIntent back from Stripe, so
 * writing it more than once writes the same value. False once fenced out.
 */
export async function recordPaymentIntent(
  prisma: PrismaClient,
  owner: Ownership,
  orderId: string,
  paymentIntentId: string,
): Promise<boolean> {
  const rows = await prisma.$queryRaw<Array<{ held: number }>>`
    with ${heldBy(owner)},
    recorded as (
      update orders set payment_intent_id = ${paymentIntentId}, updated_at = now()
       where id = ${orderId}::uuid and payment_intent_id is null and exists (select 1 from owner)
    )
    select count(*)::int as held from owner`;
  return rows[0]?.held === 1;
}

/** Marks the attempt's order with its outcome, as the effect of the claim's fenced finish. */
export function markAttemptOrder(outcome: {
  status: "paid" | "failed";
  paymentIntentId: string | null;
  declineCode?: string;
}): OutcomeEffect {
  return (finishedId) => Prisma.sql`
    update orders
       set status = ${outcome.status}::order_status,
           payment_intent_id = coalesce(${outcome.paymentIntentId}, payment_intent_id),
           decline_code = ${outcome.declineCode ?? null},
           updated_at = now()
     where idempotency_key_id = ${finishedId}`;
}

export interface OrderView {
  id: string;
  status: "pending" | "paid" | "failed";
  amountCents: number;
  currency: string;
  paymentIntentId: string | null;
  declineCode: string | null;
  /** Set when the payment was given back; see lib/checkout/refunds.ts for the reasons. */
  refundedAt: Date | null;
  refundReason: string | null;
  createdAt: Date;
  lines: Array<{ sku: string; name: string; unitPriceCents: number; quantity: number }>;
}

const viewSelect = {
  id: true,
  status: true,
  amountCents: true,
  currency: true,
  paymentIntentId: true,
  declineCode: true,
  refundedAt: true,
  refundReason: true,
  createdAt: true,
  lines: { select: { sku: true, name: true, unitPriceCents: true, quantity: true }, orderBy: { name: "asc" } },
} as const;

/** A customer's orders, newest first. */
export function listOrders(prisma: PrismaClient, customerId: string): Promise<OrderView[]> {
  return prisma.order.findMany({
    where: { customerId },
    orderBy: { createdAt: "desc" },
    select: viewSelect,
    take: 100,
  });
}

export function findOrder(prisma: PrismaClient, customerId: string, orderId: string): Promise<OrderView | null> {
  return prisma.order.findFirst({ where: { id: orderId, customerId }, select: viewSelect });
}
