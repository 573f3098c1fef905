import type Stripe from "stripe";
import { recordRefund } from "../checkout/refunds";
import type { WebhookDeps } from "./deps";

/**
 * Late success (SPEC section 8): the PaymentIntent succeeded for an attempt
 * already recorded as failed — the shopper was told "declined" and may have
 * paid again since. The money goes back, once: the refund's idempotency key is
 * derived from the intent, so every delivery, retry and instance asks Stripe
 * for the same refund and gets the first one back.
 */
export async function refundLateSuccess(
  deps: WebhookDeps,
  order: { id: string },
  intent: Pick<Stripe.PaymentIntent, "id" | "amount">,
): Promise<"refunded" | "already_refunded"> {
  let refundId: string;
  try {
    const refund = await deps.stripe.refunds.create(
      { payment_intent: intent.id },
      { idempotencyKey: `refund:${intent.id}` },
    );
    refundId = refund.id;
  } catch (err) {
    // Refunded already by someone else (the Dashboard): nothing left to give back.
    if (stripeCode(err) === "charge_already_refunded") {
      await recordRefund(deps.prisma, order, { id: null, reason: "provider" });
      return "already_refunded";
    }
    throw err;
  }
  if (await recordRefund(deps.prisma, order, { id: refundId, reason: "late_success" })) {
    deps.log?.("late_success_refund", {
      orderId: order.id,
      paymentIntentId: intent.id,
      refundId,
      amountCents: intent.amount,
    });
  }
  return "refunded";
}

function stripeCode(err: unknown): unknown {
  return typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
}
