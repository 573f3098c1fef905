import { shopperDeclineCode } from "../payments/shopper-decline";
import { heldBy, run, sql, type OutcomeEffect, type Ownership } from "@checkout/idempotency";
import { engineDatabase } from "../db";
import type { PrismaClient } from "../generated/prisma/client";
import type { MetadataLine } from "../payments/attempt-intent";
import { refundedInFull } from "./refunds";
import type { CheckoutRequest, ValidationIssue } from "./request";

/** Order persistence for checkout: one pending order per attempt, its id derived from the attempt. */
export interface PendingOrder {
  id: string;
  amountCents: number;
  currency: string;
  paymentMethod: string | null;
  paymentIntentId: string | null;
  /** Where 3-D Secure returns the shopper, as the first request of the attempt sent it to Stripe. */
  returnUrl: string | null;
  /** What was priced, as the PaymentIntent's metadata carries it. */
  lines: MetadataLine[];
  /** When the attempt's order was written: its PaymentIntent cannot be older (attempt-intent.ts lists from here). */
  createdAt: Date;
}

const pendingSelect = {
  id: true,
  amountCents: true,
  currency: true,
  paymentMethod: true,
  paymentIntentId: true,
  returnUrl: true,
  lines: { select: { sku: true, quantity: true, unitPriceCents: true } },
  createdAt: true,
} as const;

export type AttemptOrder =
  | { kind: "order"; order: PendingOrder }
  | { kind: "invalid"; issues: ValidationIssue[] }
  /** The owner lost its claim: nothing was written. */
  | { kind: "fenced" };

interface AttemptOrderRow {
  kind: "order" | "missing" | "currencies";
  id: string | null;
  amountCents: number | null;
  currency: string | null;
  paymentMethod: string | null;
  paymentIntentId: string | null;
  returnUrl: string | null;
  lines: MetadataLine[] | null;
  createdAt: Date | null;
  line: number | null;
  sku: string | null;
}

/**
 * Prices the cart from the catalogue and writes the attempt's pending order,
 * its lines and (if a session outlived a database reset) its customer, in one
 * statement — atomic without a transaction, one round trip — while `owner`
 * still holds the claim. The client's idea of a price is never used.
 *
 * At most one order per attempt, under the id derived from the attempt: a
 * retaken attempt gets the first owner's order, and price, back. An order
 * whose claim was lost (its record deleted) is taken back by the attempt's
 * new claim as it was. A cart with an unknown product, or mixing currencies,
 * writes nothing.
 */
export async function createAttemptOrder(
  prisma: PrismaClient,
  input: {
    owner: Ownership;
    orderId: string;
    customerId: string;
    items: CheckoutRequest["items"];
    paymentMethod: string;
    returnUrl: string;
  },
): Promise<AttemptOrder> {
  const items = JSON.stringify(input.items.map((item, line) => ({ line, sku: item.sku, quantity: item.quantity })));
  const rows = await run<AttemptOrderRow>(
    engineDatabase(prisma),
    sql`
    with ${heldBy(input.owner)},
    existing as (
      select o.* from orders o join owner on o.id = ${input.orderId}::uuid
       where o.idempotency_key_id = owner.id or o.idempotency_key_id is null
    ),
    wanted as (
      select * from jsonb_to_recordset(${items}::jsonb) as w(line int, sku text, quantity int)
    ),
    priced as (
      select w.line, w.sku, w.quantity, p.name, p.price_cents, p.currency
        from wanted w join products p on p.sku = w.sku
    ),
    valid as (
      select (select count(*) from priced) = (select count(*) from wanted)
         and (select count(distinct currency) from priced) = 1 as ok
    ),
    customer as (
      insert into customers (id) select ${input.customerId}::uuid from owner, valid
       where valid.ok and not exists (select 1 from existing)
      on conflict (id) do nothing
    ),
    created as (
      insert into orders (id, customer_id, idempotency_key_id, amount_cents, currency, payment_method, return_url)
      select ${input.orderId}::uuid, ${input.customerId}::uuid, owner.id,
             (select sum(price_cents * quantity) from priced), (select min(currency) from priced),
             ${input.paymentMethod}::text, ${input.returnUrl}::text
        from owner, valid
       where valid.ok and not exists (select 1 from existing)
      returning *
    ),
    lines as (
      insert into order_lines (order_id, sku, name, unit_price_cents, quantity)
      select created.id, priced.sku, priced.name, priced.price_cents, priced.quantity from created, priced
    ),
    claimed as (
      update orders set idempotency_key_id = owner.id, updated_at = now()
        from owner where orders.id = ${input.orderId}::uuid and orders.idempotency_key_id is null
    ),
    found as (select * from created union all select * from existing)
    select 'order' as kind, id, amount_cents as "amountCents", currency, payment_method as "paymentMethod",
           payment_intent_id as "paymentIntentId", return_url as "returnUrl",
           -- An existing order keeps its own lines; a created one's are not visible to this statement yet.
           coalesce(
             (select jsonb_agg(jsonb_build_object('sku', l.sku, 'quantity', l.quantity, 'unitPriceCents', l.unit_price_cents) order by l.sku)
                from order_lines l where l.order_id = found.id),
             (select jsonb_agg(jsonb_build_object('sku', p.sku, 'quantity', p.quantity, 'unitPriceCents', p.price_cents) order by p.sku)
                from priced p)
           ) as lines,
           created_at as "createdAt", null::int as line, null as sku
      from found
    union all
    select 'missing', null, null, null, null, null, null, null, null, w.line, w.sku from wanted w, owner
     where not exists (select 1 from existing) and not exists (select 1 from priced where priced.line = w.line)
    union all
    select 'currencies', null, null, null, null, null, null, null, null, null, null from valid, owner
     where not exists (select 1 from existing) and not valid.ok
       and (select count(*) from priced) = (select count(*) from wanted)`,
  );
  const order = rows.find((row) => row.kind === "order");
  if (order) return { kind: "order", order: toPending(order) };
  if (rows.length === 0) return { kind: "fenced" };
  const issues: ValidationIssue[] = rows.map((row) =>
    row.kind === "missing"
      ? { path: ["items", row.line!, "sku"], message: `unknown product ${row.sku}` }
      : { path: ["items"], message: "items must share one currency" },
  );
  return { kind: "invalid", issues };
}

function toPending(row: AttemptOrderRow): PendingOrder {
  return {
    id: row.id!,
    amountCents: Number(row.amountCents),
    currency: row.currency!,
    paymentMethod: row.paymentMethod,
    paymentIntentId: row.paymentIntentId,
    returnUrl: row.returnUrl,
    lines: row.lines ?? [],
    createdAt: new Date(row.createdAt!),
  };
}

/** The order an attempt created, if its owner got that far. */
export function findAttemptOrder(prisma: PrismaClient, idempotencyKeyId: string): Promise<PendingOrder | null> {
  return prisma.order.findUnique({ where: { idempotencyKeyId }, select: pendingSelect });
}

/**
 * What an attempt's outcome writes on its order, as the effect of the claim's
 * fenced finish, park or release: the PaymentIntent it learned, and for a
 * final outcome the status (and, for a payment, the amount the intent
 * charged, which is the truth of the order).
 */
export function markAttemptOrder(outcome: {
  status?: "paid" | "failed";
  paymentIntentId: string | null;
  declineCode?: string;
  amountCents?: number;
}): OutcomeEffect {
  return (finishedId) => sql`
    update orders
       set status = coalesce(${outcome.status ?? null}::order_status, status),
           payment_intent_id = coalesce(${outcome.paymentIntentId}::text, payment_intent_id),
           decline_code = ${outcome.status === undefined ? sql`decline_code` : sql`${outcome.declineCode ?? null}::text`},
           amount_cents = coalesce(${outcome.amountCents ?? null}::int, amount_cents),
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
  /** What refunds (succeeded or pending) gave back; below amountCents the order is partially refunded. */
  refundedCents: number;
  /** `partial`: some of the payment was given back and the order stays paid; `full`: all of it. */
  refund: "none" | "partial" | "full";
  /** Set when the refund failed later: the money did not go back (refundedAt is then null). */
  refundFailedAt: Date | null;
  /** Every refund of the payment, oldest first (lib/refunds/ledger.ts): what went back, or is on its way, and when. */
  refunds: Array<{ amountCents: number; status: string; createdAt: Date }>;
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
  refundedCents: true,
  refundFailedAt: true,
  refunds: { select: { amountCents: true, status: true, createdAt: true }, orderBy: { createdAt: "asc" } },
  createdAt: true,
  lines: { select: { sku: true, name: true, unitPriceCents: true, quantity: true }, orderBy: { name: "asc" } },
} as const;

/** A customer's orders, newest first. */
export async function listOrders(prisma: PrismaClient, customerId: string): Promise<OrderView[]> {
  const orders = await prisma.order.findMany({
    where: { customerId },
    orderBy: { createdAt: "desc" },
    select: viewSelect,
    take: 100,
  });
  return orders.map(withRefund);
}

export async function findOrder(prisma: PrismaClient, customerId: string, orderId: string): Promise<OrderView | null> {
  const order = await prisma.order.findFirst({ where: { id: orderId, customerId }, select: viewSelect });
  return order && withRefund(order);
}

function withRefund(order: Omit<OrderView, "refund">): OrderView {
  const refund = order.refundedAt
    ? "full"
    : refundedInFull(order.refundedCents, order.amountCents)
      ? "full"
      : order.refundedCents > 0
        ? "partial"
        : "none";
  return { ...order, declineCode: shopperDeclineCode(order.declineCode), refund };
}
