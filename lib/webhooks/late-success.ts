import type Stripe from "stripe";
import { recordRefund } from "../checkout/refunds";
import { refundIntentOnce } from "../payments/refund";
import type { WebhookDeps } from "./deps";

/**
 * Late success (docs/contract.md, "Webhooks"): the PaymentIntent succeeded for an attempt
 * already recorded as failed — the shopper was told "declined" and may have
 * paid again since. The money goes back, once (`refundIntentOnce`).
 */
export async function refundLateSuccess(
  deps: WebhookDeps,
  order: { id: string },
  intent: Pick<Stripe.PaymentIntent, "id" | "amount" | "amount_received">,
): Promise<"refunded" | "already_refunded"> {
  const refundId = await refundIntentOnce(deps.stripe, intent.id);
  if (refundId === null) {
    // Refunded already by someone else (the Dashboard): nothing left to give back.
    await recordRefund(deps.prisma, order, { id: null, reason: "provider", refundedCents: charged(intent) });
    return "already_refunded";
  }
  // Two events about the intent processed at once both ask Stripe, which
  // makes one refund; the one that records it says so, the other replayed it.
  const refunded = { id: refundId, reason: "late_success" as const, refundedCents: charged(intent) };
  if (!(await recordRefund(deps.prisma, order, refunded))) return "already_refunded";
  deps.log?.("late_success_refund", {
    orderId: order.id,
    paymentIntentId: intent.id,
    refundId,
    amountCents: intent.amount,
  });
  return "refunded";
}

/** What the intent charged: its refund without an amount gives all of it back. */
function charged(intent: Pick<Stripe.PaymentIntent, "amount" | "amount_received">): number {
  return intent.amount_received || intent.amount;
}
