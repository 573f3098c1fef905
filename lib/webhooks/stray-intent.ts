import type Stripe from "stripe";
import { refundIntentOnce } from "../payments/refund";
import type { WebhookDeps } from "./deps";

/**
 * One order, one PaymentIntent: the intent recorded on the order is the only
 * one that can pay it. Another intent carrying the order's id (made by hand
 * in the Dashboard, by a script, or by a bug) is a second charge waiting to
 * happen, so it is undone: refunded if it succeeded (`refundIntentOnce`),
 * cancelled if it still could. The keys are derived from the intent, so every
 * delivery, retry and instance asks Stripe for the same refund or cancellation. The order itself
 * is untouched: its own payment stands.
 */
export type StrayOutcome = "stray_refunded" | "stray_already_refunded" | "stray_canceled" | "stray_already_canceled";

const CANCELABLE: ReadonlySet<Stripe.PaymentIntent.Status> = new Set([
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "requires_capture",
]);

export async function undoStrayIntent(
  deps: WebhookDeps,
  order: { id: string; paymentIntentId: string },
  intent: Pick<Stripe.PaymentIntent, "id" | "status" | "amount">,
): Promise<StrayOutcome | { later: string }> {
  const log = (action: string, extra: Record<string, unknown> = {}) =>
    deps.log?.("stray_intent", {
      action,
      orderId: order.id,
      recorded: order.paymentIntentId,
      paymentIntentId: intent.id,
      ...extra,
    });
  if (intent.status === "succeeded") {
    const refundId = await refundIntentOnce(deps.stripe, intent.id);
    // Refunded already by someone else (the Dashboard): nothing left to give back.
    if (refundId === null) return "stray_already_refunded";
    log("refunded", { refundId, amountCents: intent.amount });
    return "stray_refunded";
  }
  if (intent.status === "canceled") return "stray_already_canceled";
  // `processing`: neither refundable nor cancellable yet; its next event, or this one's retry, settles it.
  if (!CANCELABLE.has(intent.status)) return { later: `stray intent ${intent.id} is ${intent.status}` };
  // Should it succeed meanwhile, Stripe refuses the cancellation: thrown, retried, and refunded then.
  await deps.stripe.paymentIntents.cancel(intent.id, {}, { idempotencyKey: `cancel:${intent.id}` });
  log("canceled");
  return "stray_canceled";
}
