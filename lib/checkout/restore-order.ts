import type Stripe from "stripe";
import type { PrismaClient } from "../generated/prisma/client";
import type { IntentOwner } from "./intent-ownership";
import { CHECKOUT_ENDPOINT } from "./request";

/**
 * The provider's record is the source of truth (docs/decisions/0010-provider-record-restores-orders.md).
 * An order is written before its PaymentIntent is created, so a succeeded
 * intent carrying an attempt's metadata with no order is an order the shop
 * lost: a failover to an asynchronous replica, a restore from an older
 * backup, a row deleted by hand. It is written back from the metadata — the
 * customer, the key, the lines — with the amount the intent charged, in one
 * statement. An attempt record that survived is linked again and decides the
 * status: one recorded as failed (the shopper was told so) makes the order
 * failed, for its payment to be refunded as a late success.
 */
export type Restored =
  | { kind: "restored"; orderId: string; status: "paid" | "failed" }
  /** An order accounts for the intent already (its own, or one restored meanwhile). */
  | { kind: "accounted"; orderId: string }
  | { kind: "unrestorable"; reason: string };

type SucceededIntent = Pick<Stripe.PaymentIntent, "id" | "amount" | "currency" | "metadata" | "payment_method">;

interface RestoreRow {
  kind: "created" | "existing" | "unknown_products";
  id: string | null;
  status: "paid" | "failed" | null;
}

/**
 * Only for an intent judged this shop's (intent-ownership.ts: its MAC
 * verified), with what it claims. The lines are priced from the catalogue:
 * a line whose price differs from the catalogue's is refused, so metadata
 * alone can never set a price.
 */
export async function restoreOrder(
  prisma: PrismaClient,
  intent: SucceededIntent,
  claim: Extract<IntentOwner, { kind: "ours" }>,
): Promise<Restored> {
  const { orderId, customerId, idempotencyKey, lines } = claim;
  const total = lines.reduce((sum, l) => sum + l.quantity * l.unitPriceCents, 0);
  if (total !== intent.amount)
    return { kind: "unrestorable", reason: `the lines add up to ${total}, the intent charged ${intent.amount}` };
  const paymentMethod = typeof intent.payment_method === "string" ? intent.payment_method : intent.payment_method?.id;
  const rows = await prisma.$queryRaw<RestoreRow[]>`
    with existing as (
      select id, status from orders where id = ${orderId}::uuid or payment_intent_id = ${intent.id}
    ),
    record as (
      select k.id, k.status from idempotency_keys k
       where k.subject_id = ${customerId} and k.endpoint = ${CHECKOUT_ENDPOINT} and k.key = ${idempotencyKey}::uuid
    ),
    wanted as (
      select * from jsonb_to_recordset(${JSON.stringify(lines)}::jsonb) as w(sku text, quantity int, "unitPriceCents" int)
    ),
    priced as (
      select w.*, p.name from wanted w
        join products p on p.sku = w.sku and p.price_cents = w."unitPriceCents" and p.currency = ${intent.currency}
    ),
    valid as (select (select count(*) from priced) = (select count(*) from wanted) as ok),
    customer as (
      insert into customers (id) select ${customerId}::uuid from valid
       where valid.ok and not exists (select 1 from existing)
      on conflict (id) do nothing
    ),
    created as (
      insert into orders (id, customer_id, idempotency_key_id, status, amount_cents, currency, payment_method,
                          payment_intent_id)
      select ${orderId}::uuid, ${customerId}::uuid, (select id from record),
             (case when (select status from record) = 'failed' then 'failed' else 'paid' end)::order_status,
             ${intent.amount}, ${intent.currency}, ${paymentMethod ?? null}, ${intent.id}
        from valid
       where valid.ok and not exists (select 1 from existing)
      on conflict do nothing
      returning id, status
    ),
    lines as (
      insert into order_lines (order_id, sku, name, unit_price_cents, quantity)
      select created.id, priced.sku, priced.name, priced."unitPriceCents", priced.quantity from created, priced
    )
    select 'created' as kind, id, status::text as status from created
    union all
    select 'existing', id, status::text from existing
    union all
    select 'unknown_products', null, null from valid where not valid.ok and not exists (select 1 from existing)`;
  const row = rows[0];
  // Another writer inserted it between this statement's snapshot and its insert: look again.
  if (!row) throw new Error(`order ${orderId} was written concurrently; looked at again`);
  switch (row.kind) {
    case "created":
      return { kind: "restored", orderId: row.id!, status: row.status === "failed" ? "failed" : "paid" };
    case "existing":
      return { kind: "accounted", orderId: row.id! };
    case "unknown_products":
      return {
        kind: "unrestorable",
        reason: "a product in the metadata is no longer in the catalogue, or at another price",
      };
  }
}
