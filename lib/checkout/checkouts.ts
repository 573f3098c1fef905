import { queryRows } from "../db";
import type { PrismaClient } from "../generated/prisma/client";
import { readCheckoutAnswer } from "./answers";
import type { CheckoutRequest, ValidationIssue } from "./request";

/**
 * The checkout on the server (docs/decisions/0027-one-payment-per-checkout.md):
 * the customer's cart as the shop priced it, held by the browser by id. Its
 * attempts pay it; at most one of them is live, which the claim enforces
 * (lib/abuse/admission.ts, `checkoutSlot`). Its lines change only while no
 * payment is live.
 */
export interface CheckoutLine {
  sku: string;
  name: string;
  unitPriceCents: number;
  quantity: number;
}

/** What a live payment is doing: `in_progress` while its attempt has no outcome yet. */
export type LivePaymentStatus = "in_progress" | "requires_action" | "processing" | "succeeded";

/** `open`: nothing live, Pay may be pressed; `pending`: a payment is live but not paid; `paid`. */
export type CheckoutStatus = "open" | "pending" | "paid";

export interface CheckoutAttemptView {
  key: string | null;
  orderId: string;
  status: "pending" | "paid" | "failed" | string;
  declineCode: string | null;
  createdAt: Date;
}

export interface CheckoutView {
  id: string;
  lines: CheckoutLine[];
  amountCents: number;
  currency: string;
  status: CheckoutStatus;
}

export interface LivePayment {
  key: string | null;
  status: LivePaymentStatus;
  orderId: string | null;
}

interface CheckoutRow {
  id: string;
  amount_cents: number;
  currency: string;
  lines: Array<{ sku: string; name: string; price_cents: number; quantity: number }>;
  live: boolean;
  paid: boolean;
  kind?: string;
  line?: number | null;
  sku?: string | null;
}

/** Whether a checkout has a live payment: a claim that has not failed, or an order paid or settling. */
const LIVE = (
  id: string,
) => `(exists (select 1 from idempotency_keys k where k.live_group = ${id} and k.status <> 'failed')
   or exists (select 1 from orders o where o.checkout_id = ${id} and o.status not in ('pending', 'failed')))`;
const PAID = (id: string) => `exists (select 1 from orders o where o.checkout_id = ${id} and o.status = 'paid')`;

/** A priced line as `checkouts.lines` holds it, from the columns `sku, name, price_cents, quantity`. */
const LINE_JSON = "jsonb_build_object('sku', sku, 'name', name, 'price_cents', price_cents, 'quantity', quantity)";

/**
 * Re-prices every checkout without a live payment from the catalogue as it
 * stands, so that after `npm run db:seed` changed a price or the currency
 * (SHOP_CURRENCY), an unchanged cart pays what the shop now shows, not what
 * it showed when its lines were set; `checkoutFor` in the browser sends no
 * new lines for an unchanged cart. Checkouts whose payment is live keep the
 * amount their shopper is paying; one with a line the catalogue no longer
 * lists keeps its price. Returns how many changed. Like the lines' own
 * update (`priceCheckout`), it judges "live" in the statement: run it with
 * the shop stopped, as a currency switch is (the server refuses to start
 * until the catalogue is re-priced).
 */
export async function repriceOpenCheckouts(tx: { $executeRawUnsafe(query: string): Promise<number> }): Promise<number> {
  return tx.$executeRawUnsafe(
    `with open as (
       select c.id, c.lines from checkouts c where not ${LIVE("c.id")}
     ),
     priced as (
       select o.id, l.line, p.sku, (l.item->>'quantity')::int as quantity, p.name, p.price_cents, p.currency
         from open o
        cross join lateral jsonb_array_elements(o.lines) with ordinality as l(item, line)
         join products p on p.sku = l.item->>'sku'
     ),
     repriced as (
       select id, sum(price_cents * quantity)::int as amount_cents, min(currency) as currency,
              count(distinct currency) as currencies, count(*) as priced_lines,
              jsonb_agg(${LINE_JSON} order by line) as lines
         from priced group by id
     )
     update checkouts c set amount_cents = r.amount_cents, currency = r.currency, lines = r.lines, updated_at = now()
       from repriced r join open o on o.id = r.id
      where c.id = r.id and r.currencies = 1 and r.priced_lines = jsonb_array_length(o.lines)
        and (c.amount_cents, c.currency, c.lines) is distinct from (r.amount_cents, r.currency, r.lines)`,
  );
}

export type PricedCheckout =
  { kind: "checkout"; checkout: CheckoutView } | { kind: "invalid"; issues: ValidationIssue[] };

/**
 * Prices `items` from the catalogue into a checkout: a new one of
 * `customerId`'s (`checkoutId` null), or new lines for theirs while no
 * payment of it is live. One statement; a cart with an unknown product or
 * mixed currencies writes nothing.
 */
export async function priceCheckout(
  prisma: PrismaClient,
  input: { customerId: string; checkoutId: string | null; items: NonNullable<CheckoutRequest["items"]> },
): Promise<PricedCheckout | { kind: "not_found" } | { kind: "has_payment" }> {
  const items = JSON.stringify(input.items.map((item, line) => ({ line, sku: item.sku, quantity: item.quantity })));
  const rows = await queryRows<CheckoutRow>(
    prisma,
    `with wanted as (
       select * from jsonb_to_recordset($1::jsonb) as w(line int, sku text, quantity int)
     ),
     priced as (
       select w.line, w.sku, w.quantity, p.name, p.price_cents, p.currency from wanted w join products p on p.sku = w.sku
     ),
     valid as (
       select (select count(*) from priced) = (select count(*) from wanted)
          and (select count(distinct currency) from priced) = 1 as ok
     ),
     priced_cart as (
       select (select sum(price_cents * quantity) from priced)::int as amount_cents, (select min(currency) from priced) as currency,
              (select jsonb_agg(${LINE_JSON} order by line) from priced) as lines
     ),
     target as (
       select c.id, ${LIVE("c.id")} as live from checkouts c
        where $3::uuid is not null and c.id = $3::uuid and c.customer_id = $2::uuid
     ),
     customer as (
       insert into customers (id) select $2::uuid from valid where valid.ok and $3::uuid is null
       on conflict (id) do nothing
     ),
     created as (
       insert into checkouts (customer_id, amount_cents, currency, lines)
       select $2::uuid, amount_cents, currency, lines from priced_cart, valid where valid.ok and $3::uuid is null
       returning id, amount_cents, currency, lines
     ),
     updated as (
       update checkouts c set amount_cents = p.amount_cents, currency = p.currency, lines = p.lines, updated_at = now()
         from priced_cart p, valid, target t
        where valid.ok and c.id = t.id and not t.live
       returning c.id, c.amount_cents, c.currency, c.lines
     )
     select 'checkout' as kind, id, amount_cents, currency, lines, false as live, false as paid, null::int as line, null as sku
       from created
     union all
     select 'checkout', id, amount_cents, currency, lines, false, false, null, null from updated
     union all
     select 'has_payment', null, null, null, null, true, false, null, null from target where target.live
     union all
     select 'not_found', null, null, null, null, false, false, null, null
      where $3::uuid is not null and not exists (select 1 from target)
     union all
     select 'missing', null, null, null, null, false, false, w.line, w.sku from wanted w
      where not exists (select 1 from priced where priced.line = w.line)
     union all
     select 'currencies', null, null, null, null, false, false, null, null from valid
      where not valid.ok and (select count(*) from priced) = (select count(*) from wanted)`,
    [items, input.customerId, input.checkoutId],
  );
  const found = rows.find((row) => row.kind === "checkout");
  if (found) return { kind: "checkout", checkout: toView({ ...found, live: false, paid: false }) };
  if (rows.some((row) => row.kind === "not_found")) return { kind: "not_found" };
  if (rows.some((row) => row.kind === "has_payment")) return { kind: "has_payment" };
  return {
    kind: "invalid",
    issues: rows
      .sort((a, b) => (a.line ?? -1) - (b.line ?? -1))
      .map((row) =>
        row.kind === "missing"
          ? { path: ["items", row.line!, "sku"], message: `unknown product ${row.sku}` }
          : { path: ["items"], message: "items must share one currency" },
      ),
  };
}

/** One of `customerId`'s checkouts with its attempts, oldest first; null for anyone else's or an unknown id. */
export async function findCheckout(
  prisma: PrismaClient,
  customerId: string,
  checkoutId: string,
): Promise<(CheckoutView & { attempts: CheckoutAttemptView[] }) | null> {
  const [row] = await queryRows<CheckoutRow & { attempts: CheckoutAttemptView[] | null }>(
    prisma,
    `select c.id, c.amount_cents, c.currency, c.lines, ${LIVE("c.id")} as live, ${PAID("c.id")} as paid,
            (select jsonb_agg(jsonb_build_object('key', o.attempt_key, 'orderId', o.id, 'status', o.status,
                                                 'declineCode', o.decline_code, 'createdAt', o.created_at)
                              order by o.created_at) from orders o where o.checkout_id = c.id) as attempts
       from checkouts c where c.id = $1::uuid and c.customer_id = $2::uuid`,
    [checkoutId, customerId],
  );
  if (!row) return null;
  return {
    ...toView(row),
    attempts: (row.attempts ?? []).map((a) => ({ ...a, createdAt: new Date(a.createdAt) })),
  };
}

/**
 * The checkout's live payment, for the answer to a fresh key the claim
 * refused: its attempt's key and what the payment is doing. Null when it
 * ended (failed) since the claim looked.
 */
export async function findLivePayment(prisma: PrismaClient, checkoutId: string): Promise<LivePayment | null> {
  const [row] = await queryRows<{
    key: string | null;
    response_status: number | null;
    response_body: string | null;
    order_id: string | null;
    order_status: string | null;
  }>(
    prisma,
    `select k.key::text as key, k.response_status, k.response_body, o.id as order_id, o.status::text as order_status, 0 as rank
       from idempotency_keys k left join orders o on o.idempotency_key_id = k.id
      where k.live_group = $1::uuid and k.status <> 'failed'
     union all
     select o.attempt_key::text, null, null, o.id, o.status::text, 1
       from orders o where o.checkout_id = $1::uuid and o.status not in ('pending', 'failed')
     order by rank limit 1`,
    [checkoutId],
  );
  if (!row) return null;
  return { key: row.key, orderId: row.order_id, status: livePaymentStatus(row) };
}

function livePaymentStatus(row: {
  response_status: number | null;
  response_body: string | null;
  order_status: string | null;
}): LivePaymentStatus {
  if (row.order_status === "paid" || row.response_status === 201) return "succeeded";
  if (row.order_status === "processing") return "processing";
  if (row.response_status === 202 && row.response_body) {
    const answer = readCheckoutAnswer(202, JSON.parse(row.response_body) as unknown);
    if (answer && "status" in answer && (answer.status as string) === "processing") return "processing";
    return "requires_action";
  }
  return "in_progress";
}

function toView(row: CheckoutRow): CheckoutView {
  return {
    id: row.id,
    lines: (row.lines ?? []).map((l) => ({
      sku: l.sku,
      name: l.name,
      unitPriceCents: l.price_cents,
      quantity: l.quantity,
    })),
    amountCents: Number(row.amount_cents),
    currency: row.currency,
    status: row.paid ? "paid" : row.live ? "pending" : "open",
  };
}
