import type Stripe from "stripe";
import { restoreOrder } from "../checkout/restore-order";
import { refundedAmount, refundedInFull } from "../checkout/refunds";
import { refundIntentOnce } from "../payments/refund";
import { judgeIntent } from "../checkout/intent-ownership";
import { leaveAlone } from "./not-ours";
import type { WebhookDeps } from "./deps";
import { refundLateSuccess } from "./late-success";

/**
 * A succeeded PaymentIntent of this shop that no order accounts for: its
 * order is restored from the intent's metadata (lib/checkout/restore-order.ts),
 * as paid, or as failed and refunded where its attempt was recorded as
 * failed; where it cannot be restored, the charge is refunded. Logged and
 * counted either way (`checkout_orders_restored_total`).
 */
export type LostOrderVerdict =
  "accounted" | "not_yet" | "not_ours" | "order_restored" | "order_restored_refunded" | "unaccounted_refunded";

/**
 * How old a success must be before its missing order counts as lost. The
 * order is committed before the intent is created, so any age would do; the
 * margin keeps a clock's skew, or a database read that lags its own writes,
 * from restoring (or refunding) an order about to be seen.
 */
export const LOST_AFTER_SECONDS = 5;

export async function accountForIntent(
  deps: WebhookDeps,
  intent: Stripe.PaymentIntent,
  now = Date.now(),
): Promise<LostOrderVerdict> {
  if (now / 1000 - intent.created < LOST_AFTER_SECONDS) return "not_yet";
  // As Stripe has it now: metadata edited since the event was sent is judged too.
  const owner = judgeIntent(deps.identity, intent);
  if (owner.kind !== "ours") {
    if (owner.kind !== "not_an_attempt") leaveAlone(deps, intent, owner);
    return "not_ours";
  }
  const restored = await restoreOrder(deps.prisma, intent, owner);
  const fields = { paymentIntentId: intent.id, attemptId: intent.metadata.orderId, amountCents: intent.amount };
  switch (restored.kind) {
    case "accounted":
      return "accounted";
    case "restored":
      if (restored.status === "paid") {
        deps.log?.("order_restored", { outcome: "paid", orderId: restored.orderId, ...fields });
        return "order_restored";
      }
      await refundLateSuccess(deps, { id: restored.orderId }, intent);
      deps.log?.("order_restored", { outcome: "refunded", orderId: restored.orderId, ...fields });
      return "order_restored_refunded";
    case "unrestorable": {
      // Given back already, all of it (by an earlier pass, or in the Dashboard): nothing is owed. A
      // partial refund accounts for part only: the rest is refunded (Stripe's default, what remains).
      const refunds: Stripe.Refund[] = [];
      for await (const refund of deps.stripe.refunds.list({ payment_intent: intent.id, limit: 100 }))
        refunds.push(refund);
      if (refundedInFull(refundedAmount(refunds), intent.amount_received || intent.amount)) return "accounted";
      const refundId = await refundIntentOnce(deps.stripe, intent.id);
      deps.log?.("order_restored", {
        outcome: "unrestorable_refunded",
        reason: restored.reason,
        refundId,
        alarm: true,
        ...fields,
      });
      return "unaccounted_refunded";
    }
  }
}

/**
 * The catch-up's audit of the provider's record: of the succeeded intents it
 * listed (webhooks delivered or not), those of this shop that no order
 * accounts for. One query for the whole page; each missing one is then
 * looked at as Stripe has it now.
 */
export async function accountForSucceeded(
  deps: WebhookDeps,
  intents: readonly Pick<Stripe.PaymentIntent, "id" | "metadata" | "amount" | "currency">[],
): Promise<Record<LostOrderVerdict, number>> {
  const counts: Record<LostOrderVerdict, number> = {
    accounted: 0,
    not_yet: 0,
    not_ours: 0,
    order_restored: 0,
    order_restored_refunded: 0,
    unaccounted_refunded: 0,
  };
  const ours: Pick<Stripe.PaymentIntent, "id" | "metadata" | "amount" | "currency">[] = [];
  for (const intent of intents) {
    const owner = judgeIntent(deps.identity, intent);
    if (owner.kind === "ours") ours.push(intent);
    else if (owner.kind !== "not_an_attempt") leaveAlone(deps, intent, owner);
  }
  if (ours.length === 0) return counts;
  const found = await deps.prisma.order.findMany({
    where: {
      OR: [
        { id: { in: ours.map((i) => i.metadata.orderId!.toLowerCase()) } },
        { paymentIntentId: { in: ours.map((i) => i.id) } },
      ],
    },
    select: { id: true, paymentIntentId: true },
  });
  const orderIds = new Set(found.map((o) => o.id));
  const intentIds = new Set(found.map((o) => o.paymentIntentId));
  for (const listed of ours) {
    if (orderIds.has(listed.metadata.orderId!.toLowerCase()) || intentIds.has(listed.id)) {
      counts.accounted += 1;
      continue;
    }
    try {
      const intent = await deps.stripe.paymentIntents.retrieve(listed.id);
      counts[intent.status === "succeeded" ? await accountForIntent(deps, intent) : "accounted"] += 1;
    } catch (err) {
      // Looked at again on the next pass: the intent is still inside its overlap.
      deps.log?.("order_restore_failed", {
        paymentIntentId: listed.id,
        reason: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return counts;
}
