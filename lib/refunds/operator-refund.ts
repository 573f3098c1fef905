import "server-only";
import type Stripe from "stripe";
import type { Database } from "@checkout/idempotency";
import type { IdempotentAnswer, IdempotentContext } from "@checkout/idempotency/next";
import { isStripeError } from "../payments/stripe-errors";
import {
  adoptAttemptRefund,
  attemptRefund,
  MAX_REASON_LENGTH,
  orderRefunds,
  settleAttemptRefund,
  type LedgerRefund,
  type Transaction,
} from "./ledger";

/** Every operator shares one subject: the keys are UUIDs, and a key is one press of one order's Refund. */
export const OPERATOR_SUBJECT = "ops";
/** The engine's endpoint for operator refunds (the order's id rides in the body): also the namespace of Stripe's key. */
export const REFUND_ENDPOINT = "POST /api/ops/orders/refunds";

/** The body of `POST /api/ops/orders/{orderId}/refunds`: the order's id rides in it, so the fingerprint covers it. */
export interface RefundRequest {
  orderId: string;
  amountCents: number | null;
  reason: string | null;
}

/** The body as the contract allows it, or the one line saying what is wrong. */
export function parseRefundRequest(
  orderId: string,
  json: unknown,
): { ok: true; value: RefundRequest } | { ok: false; message: string } {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    return { ok: false, message: "The body must be a JSON object: { amountCents?, reason? }." };
  const { amountCents, reason, ...rest } = json as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return { ok: false, message: `Unknown field: ${unknown[0]}.` };
  if (
    amountCents !== undefined &&
    !(typeof amountCents === "number" && Number.isSafeInteger(amountCents) && amountCents > 0)
  )
    return { ok: false, message: "amountCents must be a positive whole number of minor units (cents)." };
  if (reason !== undefined && !(typeof reason === "string" && reason.length <= MAX_REASON_LENGTH))
    return { ok: false, message: `reason must be text of at most ${MAX_REASON_LENGTH} characters.` };
  return {
    ok: true,
    value: { orderId, amountCents: (amountCents as number | undefined) ?? null, reason: reason?.trim() || null },
  };
}

const refusal = (
  status: number,
  error: string,
  message: string,
  extra: Record<string, unknown> = {},
): IdempotentAnswer => ({
  status,
  body: { error, message, ...extra },
  outcome: "failed",
});

/** The answer to a refund the ledger holds: what it is now and what remains of the order. */
function answer(refund: LedgerRefund, remainingCents: number): IdempotentAnswer {
  return {
    status: 201,
    body: {
      refundId: refund.id,
      stripeRefundId: refund.stripeRefundId,
      status: refund.status,
      amountCents: refund.amountCents,
      remainingCents,
    },
  };
}

/**
 * One operator's refund attempt, run once per claim (the route wraps it in
 * withIdempotency). Its amount was reserved in the claim's own statement
 * (ledger.ts, refundGate); this asks Stripe for exactly that refund under a
 * key derived from the attempt, so a retry or a retake after a crash gets
 * Stripe's first refund back, never a second one, and writes Stripe's answer
 * fenced by the claim.
 */
export async function runOperatorRefund(
  deps: {
    db: Database;
    transaction: Transaction;
    stripe: Stripe;
    /** Reads Stripe's list of the payment's refunds into the ledger (the path of Stripe's refund news). */
    readStripeRefunds?: (paymentIntentId: string) => Promise<unknown>;
  },
  context: IdempotentContext<RefundRequest>,
): Promise<IdempotentAnswer> {
  const { db, transaction, stripe } = deps;
  const orderId = context.body.orderId;
  const order = await orderRefunds(db, orderId);
  if (!order) return refusal(404, "not_found", `No order ${orderId}.`);
  // The claim's row, or (the claim that made it lost with the database) the one Stripe's news recorded for it.
  const refund =
    (await attemptRefund(db, context.owner.recordId)) ??
    (await adoptAttemptRefund(db, context.owner, context.attemptId));
  if (!refund) {
    if (order.status !== "paid" || !order.paymentIntentId)
      return refusal(422, "order_not_charged", `Order ${orderId} has no payment to refund (it is ${order.status}).`);
    return refusal(
      422,
      "refund_exceeds_remaining",
      order.remainingCents === 0
        ? "Nothing remains to refund on this order."
        : `At most ${order.remainingCents} remains to refund on this order.`,
      { remainingCents: order.remainingCents },
    );
  }
  // A retake after Stripe answered and the row was written: the answer is the row's.
  if (refund.stripeRefundId) return answer(refund, order.remainingCents);
  // A retake may come after Stripe refunded and the process died before writing it down, and later than
  // Stripe remembers the key (24 hours): Stripe's list of the payment's refunds is asked first, by the
  // ledger id each of the shop's refunds carries, so the refund is made at most once whenever it is retaken.
  let made: Stripe.Refund | null = context.owner.retaken
    ? await refundOfLedgerRow(stripe, order.paymentIntentId!, refund.id)
    : null;
  try {
    made ??= await stripe.refunds.create(
      {
        payment_intent: order.paymentIntentId!,
        amount: refund.amountCents,
        // attempt_key: the audit and the soak count Stripe refunds per attempt; reason: why, as the operator said.
        metadata: {
          order_id: orderId,
          refund_ledger_id: refund.id,
          attempt_key: context.scope.key,
          reason: refund.reason ?? "operator refund",
        },
      },
      { idempotencyKey: context.keyFor("refund") },
    );
  } catch (err) {
    if (!isStripeError(err, "StripeInvalidRequestError")) throw err; // unknown: the claim is released, a retry asks again
    // Stripe refused it (e.g. a Dashboard refund took the rest first): the reservation goes back.
    // Fenced out: the answer below is not stored; the adapter answers with the new owner's.
    await settleAttemptRefund(transaction, context.owner, refund.id, { stripeRefundId: null, status: "canceled" });
    // A refund the shop never heard of took it: Stripe's list says what is left, for this answer and the next press.
    await deps.readStripeRefunds?.(order.paymentIntentId!).catch(() => undefined);
    const now = await orderRefunds(db, orderId);
    return refusal(422, "refund_exceeds_remaining", `Stripe refused the refund: ${err.message}`, {
      remainingCents: now?.remainingCents ?? 0,
    });
  }
  const status =
    made.status === "failed"
      ? "failed"
      : made.status === "succeeded"
        ? "succeeded"
        : made.status === "canceled"
          ? "canceled"
          : "pending";
  await settleAttemptRefund(transaction, context.owner, refund.id, {
    stripeRefundId: made.id,
    status,
    failureReason: made.failure_reason ?? null,
  });
  const now = await orderRefunds(db, orderId);
  return answer({ ...refund, stripeRefundId: made.id, status }, now?.remainingCents ?? 0);
}

/** The payment's refund Stripe made for this ledger row, if any (every page of the list). */
async function refundOfLedgerRow(
  stripe: Stripe,
  paymentIntentId: string,
  ledgerId: string,
): Promise<Stripe.Refund | null> {
  for await (const made of stripe.refunds.list({ payment_intent: paymentIntentId, limit: 100 }))
    if (made.metadata?.refund_ledger_id === ledgerId) return made;
  return null;
}
