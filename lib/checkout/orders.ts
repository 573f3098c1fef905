import { shopperDeclineCode } from "../payments/shopper-decline";
import { heldBy, run, sql, type IdempotencyEngine, type OutcomeEffect, type Ownership } from "@checkout/idempotency";
import { engineDatabase } from "../db";
import type { PrismaClient } from "../generated/prisma/client";
import type { MetadataLine } from "../payments/attempt-intent";
import type { CardFacts } from "../payments/outcome";
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
  /** Where Stripe sends the receipt, as the first request of the attempt asked (null: no receipt). */
  receiptEmail: string | null;
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
  receiptEmail: true,
  lines: { select: { sku: true, quantity: true, unitPriceCents: true } },
  createdAt: true,
} as const;

export type AttemptOrder =
  | { kind: "order"; order: PendingOrder }
  | { kind: "invalid"; issues: ValidationIssue[] }
  /** The owner lost its claim: nothing was written. */
  | { kind: "fenced" };

interface AttemptOrderRow {
  kind: "order" | "missing" | "currencies" | "changed";
  id: string | null;
  amountCents: number | null;
  currency: string | null;
  paymentMethod: string | null;
  paymentIntentId: string | null;
  returnUrl: string | null;
  receiptEmail: string | null;
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
    /** The cart to price from the catalogue; beside `checkoutId`, the lines the shopper saw (or none). */
    items: NonNullable<CheckoutRequest["items"]>;
    /** The customer's checkout this attempt pays, priced when its lines were set; null: a checkout of its own. */
    checkoutId: string | null;
    /** The Idempotency-Key, kept on the order after the claim's record is cleaned up. */
    key: string;
    paymentMethod: string;
    returnUrl: string;
    receiptEmail?: string | null;
  },
): Promise<AttemptOrder> {
  const items = JSON.stringify(input.items.map((item, line) => ({ line, sku: item.sku, quantity: item.quantity })));
  const checkoutId = input.checkoutId;
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
    paid_checkout as (
      select * from checkouts where id = ${checkoutId}::uuid and customer_id = ${input.customerId}::uuid
    ),
    checkout_lines as (
      select l.* from paid_checkout c, jsonb_to_recordset(c.lines) as l(sku text, name text, price_cents int, quantity int)
    ),
    priced as (
      select w.line, w.sku, w.quantity, p.name, p.price_cents, p.currency
        from wanted w join products p on p.sku = w.sku
       where ${checkoutId}::uuid is null
      union all
      -- A checkout's lines as the shop priced them when they were set.
      select 0, l.sku, l.quantity, l.name, l.price_cents, c.currency from paid_checkout c, checkout_lines l
    ),
    valid as (
      select case when ${checkoutId}::uuid is null
                  then (select count(*) from priced) = (select count(*) from wanted)
                       and (select count(distinct currency) from priced) = 1
                  -- Items sent beside the checkout are the lines the shopper saw: they must be its lines.
                  else exists (select 1 from paid_checkout)
                       and (not exists (select 1 from wanted)
                            or not exists (select sku, quantity from wanted except select sku, quantity from checkout_lines)
                               and not exists (select sku, quantity from checkout_lines except select sku, quantity from wanted))
             end as ok
    ),
    customer as (
      insert into customers (id) select ${input.customerId}::uuid from owner, valid
       where valid.ok and not exists (select 1 from existing)
      on conflict (id) do nothing
    ),
    own_checkout as (
      -- Items without a checkout: a checkout of its own, under the order's id.
      insert into checkouts (id, customer_id, amount_cents, currency, lines)
      select ${input.orderId}::uuid, ${input.customerId}::uuid,
             (select sum(price_cents * quantity) from priced), (select min(currency) from priced),
             (select jsonb_agg(jsonb_build_object('sku', sku, 'name', name, 'price_cents', price_cents, 'quantity', quantity) order by line) from priced)
        from owner, valid
       where valid.ok and ${checkoutId}::uuid is null and not exists (select 1 from existing)
      on conflict (id) do nothing
    ),
    created as (
      insert into orders (id, customer_id, idempotency_key_id, amount_cents, currency, payment_method, return_url,
                          receipt_email, checkout_id, attempt_key)
      select ${input.orderId}::uuid, ${input.customerId}::uuid, owner.id,
             (select sum(price_cents * quantity) from priced), (select min(currency) from priced),
             ${input.paymentMethod}::text, ${input.returnUrl}::text, ${input.receiptEmail ?? null}::text,
             coalesce(${checkoutId}::uuid, ${input.orderId}::uuid), ${input.key}::uuid
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
           payment_intent_id as "paymentIntentId", return_url as "returnUrl", receipt_email as "receiptEmail",
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
    select 'missing', null, null, null, null, null, null, null, null, null, w.line, w.sku from wanted w, owner
     where ${checkoutId}::uuid is null and not exists (select 1 from existing)
       and not exists (select 1 from priced where priced.line = w.line)
    union all
    select 'currencies', null, null, null, null, null, null, null, null, null, null, null from valid, owner
     where ${checkoutId}::uuid is null and not exists (select 1 from existing) and not valid.ok
       and (select count(*) from priced) = (select count(*) from wanted)
    union all
    select 'changed', null, null, null, null, null, null, null, null, null, null, null from valid, owner
     where ${checkoutId}::uuid is not null and not exists (select 1 from existing) and not valid.ok`,
  );
  const order = rows.find((row) => row.kind === "order");
  if (order) return { kind: "order", order: toPending(order) };
  if (rows.length === 0) return { kind: "fenced" };
  // In the cart's order, however the statement's plan returned them.
  rows.sort((a, b) => (a.line ?? -1) - (b.line ?? -1));
  const issues: ValidationIssue[] = rows.map((row) =>
    row.kind === "missing"
      ? { path: ["items", row.line!, "sku"], message: `unknown product ${row.sku}` }
      : row.kind === "changed"
        ? { path: ["items"], message: "the checkout's lines are not these items: it changed, or is not yours" }
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
    receiptEmail: row.receiptEmail,
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
  status?: "paid" | "failed" | "processing";
  paymentIntentId: string | null;
  declineCode?: string;
  amountCents?: number;
  /** The card that paid, when the intent's answer named it. */
  card?: CardFacts | null;
}): OutcomeEffect {
  return (finishedId) => sql`
    update orders
       set status = coalesce(${outcome.status ?? null}::order_status, status),
           payment_intent_id = coalesce(${outcome.paymentIntentId}::text, payment_intent_id),
           decline_code = ${outcome.status === undefined ? sql`decline_code` : sql`${outcome.declineCode ?? null}::text`},
           amount_cents = coalesce(${outcome.amountCents ?? null}::int, amount_cents),
           card_brand = coalesce(${outcome.card?.brand ?? null}, card_brand),
           card_last4 = coalesce(${outcome.card?.last4 ?? null}, card_last4),
           updated_at = now()
     where idempotency_key_id = ${finishedId}`;
}

export interface OrderView {
  id: string;
  status: "pending" | "processing" | "paid" | "failed";
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
  /** Set when a payment that was on its way (a debit) failed later: its checkout reopened to be paid again. */
  failedLaterAt: Date | null;
  /** Every refund of the payment, oldest first (lib/refunds/ledger.ts): what went back, or is on its way, and when. */
  refunds: Array<{ amountCents: number; status: string; createdAt: Date }>;
  createdAt: Date;
  lines: Array<{ sku: string; name: string; unitPriceCents: number; quantity: number }>;
  /** The card that paid (`visa`, last four `4242`); null when the shop did not learn it (see CardFacts). */
  cardBrand: string | null;
  cardLast4: string | null;
  receiptEmail: string | null;
  /** The checkout this order pays (its own when the attempt sent items). */
  checkoutId: string;
  /** Every attempt at paying the checkout, oldest first, this one included: declined ones live here. */
  attempts: OrderAttempt[];
}

export interface OrderAttempt {
  orderId: string;
  key: string | null;
  status: "pending" | "processing" | "paid" | "failed";
  declineCode: string | null;
  createdAt: Date;
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
  cardBrand: true,
  cardLast4: true,
  receiptEmail: true,
  lines: { select: { sku: true, name: true, unitPriceCents: true, quantity: true }, orderBy: { name: "asc" } },
  checkoutId: true,
  attemptKey: true,
  failedLaterAt: true,
} as const;

type ViewRow = Omit<OrderView, "refund" | "checkoutId" | "attempts"> & {
  checkoutId: string | null;
  attemptKey: string | null;
};

/**
 * A customer's orders, newest first: one per checkout that has a payment
 * (paid, pending, processing, or refunded), with every attempt of the
 * checkout inside it. A declined attempt is never an order of its own, and a
 * checkout whose every attempt failed with nothing charged is no order at
 * all: the shopper bought nothing (its attempts stay readable by id).
 */
export async function listOrders(prisma: PrismaClient, customerId: string): Promise<OrderView[]> {
  const rows = await prisma.order.findMany({
    where: { customerId },
    orderBy: { createdAt: "desc" },
    select: viewSelect,
    take: 200,
  });
  const byCheckout = new Map<string, ViewRow[]>();
  for (const row of rows) {
    const checkout = row.checkoutId ?? row.id;
    byCheckout.set(checkout, [...(byCheckout.get(checkout) ?? []), row]);
  }
  const orders = [...byCheckout.values()].flatMap((attempts) => {
    const chosen = attempts.find((a) => !declinedOnly(a));
    return chosen ? [view(chosen, attempts)] : [];
  });
  return orders.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()).slice(0, 100);
}

/** One of the customer's orders (any attempt's order id), with its checkout's attempts. */
export async function findOrder(prisma: PrismaClient, customerId: string, orderId: string): Promise<OrderView | null> {
  const order = await prisma.order.findFirst({ where: { id: orderId, customerId }, select: viewSelect });
  if (!order) return null;
  const attempts = order.checkoutId
    ? await prisma.order.findMany({
        where: { customerId, checkoutId: order.checkoutId },
        orderBy: { createdAt: "desc" },
        select: viewSelect,
      })
    : [order];
  return view(order, attempts);
}

/**
 * An attempt that failed and never charged: an order only when its checkout
 * has a payment. A payment the shopper was told is on its way and that failed
 * later is one: it stays, failed, so the shopper knows to pay again.
 */
function declinedOnly(order: ViewRow): boolean {
  return (
    order.status === "failed" && order.failedLaterAt === null && order.refundedCents === 0 && order.refundedAt === null
  );
}

/** `attempts`: the checkout's, newest first. */
function view(order: ViewRow, attempts: ViewRow[]): OrderView {
  const { attemptKey: _key, ...rest } = order;
  return {
    ...withRefund({ ...rest, checkoutId: order.checkoutId ?? order.id }),
    attempts: [...attempts].reverse().map((a) => ({
      orderId: a.id,
      key: a.attemptKey,
      status: a.status,
      declineCode: shopperDeclineCode(a.declineCode),
      createdAt: a.createdAt,
    })),
  };
}

function withRefund(order: Omit<OrderView, "refund" | "attempts">): Omit<OrderView, "attempts"> {
  const refund = order.refundedAt
    ? "full"
    : refundedInFull(order.refundedCents, order.amountCents)
      ? "full"
      : order.refundedCents > 0
        ? "partial"
        : "none";
  return { ...order, declineCode: shopperDeclineCode(order.declineCode), refund };
}

/**
 * Stripe decided a processing payment (a SEPA debit, days later): the order
 * learns it, once, whatever its attempt's key has become since (expired and
 * removed, most likely). Returns false when the order was not processing.
 */
export async function paymentSucceededLater(
  prisma: PrismaClient,
  orderId: string,
  paymentIntentId: string,
  amountCents: number,
): Promise<boolean> {
  const { count } = await prisma.order.updateMany({
    where: { id: orderId, status: "processing", paymentIntentId },
    data: { status: "paid", amountCents },
  });
  return count === 1;
}

/**
 * A processing payment that Stripe failed later: the order is failed, once.
 * The one place a later failure lands, so that what follows it (the shopper
 * paying the same checkout another way) hangs off this call. Two writes, the
 * order and then its record's group: called again for an order failed already,
 * it writes the second only, so an event retried after a crash between them
 * still reopens the checkout.
 */
export async function paymentFailedLater(
  deps: { prisma: PrismaClient; idempotency: IdempotencyEngine },
  orderId: string,
  paymentIntentId: string,
  declineCode: string,
): Promise<boolean> {
  const { count } = await deps.prisma.order.updateMany({
    where: { id: orderId, status: "processing", paymentIntentId },
    data: { status: "failed", declineCode, failedLaterAt: new Date() },
  });
  // Its checkout reopens: the shopper may pay it another way.
  const order = await deps.prisma.order.findUnique({ where: { id: orderId }, select: { idempotencyKeyId: true } });
  if (order?.idempotencyKeyId) await deps.idempotency.leaveGroup(order.idempotencyKeyId);
  return count === 1;
}
