import "server-only";
import type Stripe from "stripe";
import { heldBy, raw, run, sql, type Database, type Gate, type Ownership } from "@checkout/idempotency";
import type { IdempotentAnswer, IdempotentContext } from "@checkout/idempotency/next";
import { isAttemptIntentOf, type ShopIdentity } from "../checkout/intent-ownership";
import { isStripeError } from "../payments/stripe-errors";

/** The engine's endpoint for operator cancels (the order's id rides in the body): also the namespace of Stripe's key. */
export const CANCEL_ENDPOINT = "POST /api/ops/orders/cancel";

/** Stripe's cancellation_reason values a cancel may send (PaymentIntentCancelParams). */
export const CANCELLATION_REASONS = ["requested_by_customer", "duplicate", "fraudulent", "abandoned"] as const;
export type CancellationReason = (typeof CANCELLATION_REASONS)[number];

/** The body of `POST /api/ops/orders/{orderId}/cancel`: the order's id rides in it, so the fingerprint covers it. */
export interface CancelRequest {
  orderId: string;
  reason: CancellationReason | null;
}

/** The body as the contract allows it, or the one line saying what is wrong. */
export function parseCancelRequest(
  orderId: string,
  json: unknown,
): { ok: true; value: CancelRequest } | { ok: false; message: string } {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    return { ok: false, message: "The body must be a JSON object: { reason? }." };
  const { reason, ...rest } = json as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return { ok: false, message: `Unknown field: ${unknown[0]}.` };
  if (reason !== undefined && !CANCELLATION_REASONS.includes(reason as CancellationReason))
    return { ok: false, message: `reason must be one of ${CANCELLATION_REASONS.join(", ")}.` };
  return { ok: true, value: { orderId, reason: (reason as CancellationReason | undefined) ?? null } };
}

/**
 * Whether /ops offers Cancel: a payment waiting for the shopper (3-D Secure,
 * the bank's page). A debit in processing is sent to Stripe if asked (Stripe
 * cancels a processing intent "in rare cases") but not offered: Stripe
 * refuses a SEPA debit once submitted.
 */
export function offersCancel(order: { status: string; paymentIntentId: string | null }): boolean {
  return order.status === "pending" && order.paymentIntentId !== null;
}

/**
 * The operator's cancel, held in the claim's own statement: the order row is
 * locked (`for update` returns its newest version once a concurrent claim
 * commits), and the fresh claim takes the order's cancel only while its
 * payment is open (pending or processing, with an intent) and no other claim
 * holds it: the holder's lease (`leaseMs`, the in-progress TTL) has not run
 * out and it was not released after an unknown outcome. A cancel abandoned
 * that way is taken by the next key; Stripe's state makes a second cancel
 * harmless, and the abandoned one's writes are fenced by the order's
 * `cancel_key_id`. Every fresh key is admitted: one that takes nothing is
 * answered from the order as it stands (stored and replayed), and sends nothing.
 */
export function cancelGate(orderId: string, reason: CancellationReason | null, leaseMs: number): Gate {
  return {
    before: sql`
      cancel_order as (
        select o.id, o.status::text as status, o.payment_intent_id,
               not exists (select 1 from idempotency_keys k
                            where k.id = o.cancel_key_id and k.status = 'in_progress'
                              and k.locked_at >= now() - ${leaseMs}::float8 * interval '1 millisecond') as free
          from orders o
         where o.id = ${orderId}::uuid and not exists (select 1 from existing)
           for update of o
      )`,
    admits: raw("true"),
    after: sql`
      cancel_held as (
        update orders o set cancel_key_id = i.id, cancel_reason = ${reason}, updated_at = now()
          from cancel_order c, inserted i
         where o.id = c.id and c.status in ('pending', 'processing') and c.payment_intent_id is not null
           and c.free
        returning o.id
      )`,
    refusal: raw("select 'never'::text, 0 where false"),
  };
}

interface CancelOrder {
  id: string;
  status: string;
  paymentIntentId: string | null;
  cancelKeyId: string | null;
  canceledAt: Date | null;
}

async function cancelOrder(db: Database, orderId: string): Promise<CancelOrder | null> {
  const [order] = await run<CancelOrder>(
    db,
    sql`select id, status::text as status, payment_intent_id as "paymentIntentId", cancel_key_id as "cancelKeyId",
               canceled_at as "canceledAt"
          from orders where id = ${orderId}::uuid`,
  );
  return order ?? null;
}

/** The order lets go of the attempt's cancel (fenced): a later press asks again. */
async function letGo(db: Database, owner: Ownership, orderId: string): Promise<void> {
  await run(
    db,
    sql`with ${heldBy(owner)}
        update orders o set cancel_key_id = null, cancel_reason = null, updated_at = now()
          from owner where o.id = ${orderId}::uuid and o.cancel_key_id = owner.id`,
  );
}

/** Stripe cancelled the payment at the attempt's request: when, on the order (fenced). */
async function markCanceled(db: Database, owner: Ownership, orderId: string): Promise<void> {
  await run(
    db,
    sql`with ${heldBy(owner)}
        update orders o set canceled_at = coalesce(o.canceled_at, now()), updated_at = now()
          from owner where o.id = ${orderId}::uuid and o.cancel_key_id = owner.id`,
  );
}

const refusal = (status: number, error: string, message: string, extra: Record<string, unknown> = {}) =>
  ({ status, body: { error, message, ...extra }, outcome: "failed" }) satisfies IdempotentAnswer;

export interface CancelDeps {
  db: Database;
  stripe: Stripe;
  identity: ShopIdentity;
  /** Writes what the intent now is on its order, as Stripe's news of it would (a failed payment reopens its checkout). */
  account(paymentIntentId: string): Promise<unknown>;
}

/**
 * One operator's cancel attempt, run once per claim (the route wraps it in
 * withIdempotency). Stripe decides: the intent is read first (this shop's,
 * of this order, or nothing is sent), cancelled under a key derived from the
 * attempt (a retry or a retake gets Stripe's first answer), and when Stripe
 * refuses because the shopper finished first, read again: the answer is
 * what the payment then is, and the order learns it by the path Stripe's
 * news takes.
 */
export async function runOperatorCancel(
  deps: CancelDeps,
  context: IdempotentContext<CancelRequest>,
): Promise<IdempotentAnswer> {
  const { db, stripe } = deps;
  const { orderId, reason } = context.body;
  const order = await cancelOrder(db, orderId);
  if (!order) return refusal(404, "not_found", `No order ${orderId}.`);
  if (order.cancelKeyId !== context.owner.recordId) return notHeld(order);
  const paymentIntentId = order.paymentIntentId!;
  let intent = await stripe.paymentIntents.retrieve(paymentIntentId);
  if (!isAttemptIntentOf(deps.identity, order.id)(intent)) {
    await letGo(db, context.owner, orderId);
    return refusal(
      422,
      "order_not_cancelable",
      `Payment ${paymentIntentId} is not this shop's payment of order ${orderId}; nothing was cancelled.`,
    );
  }
  if (intent.status !== "succeeded" && intent.status !== "canceled") {
    try {
      intent = await stripe.paymentIntents.cancel(paymentIntentId, reason ? { cancellation_reason: reason } : {}, {
        idempotencyKey: context.keyFor("cancel"),
      });
    } catch (err) {
      // Anything else (a timeout, a 5xx) is unknown: the claim is released and a retry asks again.
      if (!(isStripeError(err, "StripeInvalidRequestError") && err.code === "payment_intent_unexpected_state"))
        throw err;
      // The shopper finished first, or Stripe does not cancel it in this state: what it is now decides.
      intent = await stripe.paymentIntents.retrieve(paymentIntentId);
      if (intent.status !== "succeeded" && intent.status !== "canceled") {
        await letGo(db, context.owner, orderId);
        return refusal(422, "payment_not_cancelable", `Stripe refused to cancel the payment: ${err.message}`, {
          paymentStatus: intent.status,
        });
      }
    }
  }
  await deps.account(paymentIntentId);
  if (intent.status === "succeeded") {
    await letGo(db, context.owner, orderId);
    return refusal(
      422,
      "order_paid",
      `Order ${orderId} is paid: the shopper completed the payment first. Refund it instead.`,
      { paymentStatus: "succeeded" },
    );
  }
  await markCanceled(db, context.owner, orderId);
  const now = await cancelOrder(db, orderId);
  return {
    status: 200,
    body: { orderId, paymentIntentId, paymentStatus: "canceled", orderStatus: now?.status ?? order.status, reason },
  };
}

/** The answer to a claim that took no cancel: the order as it stands, in one line. */
function notHeld(order: CancelOrder): IdempotentAnswer {
  if (order.status === "paid")
    return refusal(422, "order_paid", `Order ${order.id} is paid: nothing to cancel. Refund it instead.`);
  if (order.status === "failed")
    return refusal(
      422,
      "order_not_cancelable",
      order.canceledAt
        ? `Order ${order.id}'s payment is already cancelled.`
        : `Order ${order.id}'s payment failed: nothing to cancel.`,
    );
  if (!order.paymentIntentId)
    return refusal(422, "order_not_cancelable", `Order ${order.id} has no payment at Stripe yet: nothing to cancel.`);
  return refusal(422, "cancel_in_progress", `Another cancel of order ${order.id} is under way.`);
}
