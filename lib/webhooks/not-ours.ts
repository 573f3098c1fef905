import type Stripe from "stripe";
import { raiseAlarm } from "../alarms";
import type { IntentOwner } from "../checkout/intent-ownership";
import type { WebhookDeps } from "./deps";

/**
 * What the shop does with an intent that is not its own (intent-ownership.ts):
 * nothing to the intent, ever. Another shop's on the same account is counted
 * (`checkout_foreign_intents_total`); one naming this shop whose metadata does
 * not verify (edited in the Dashboard, forged by another integration) is an
 * alarm: an error in the log, `checkout_alarms{kind="intent_tampered"}`, the
 * reason in `/api/health` for the metrics token. The shop's own lab's (signed)
 * is its demo's, no alarm. None is ever refunded,
 * cancelled or restored automatically: a person decides.
 */
export function leaveAlone(
  deps: WebhookDeps,
  intent: Pick<Stripe.PaymentIntent, "id">,
  owner: Exclude<IntentOwner, { kind: "ours" }>,
): "not_an_attempt" | "other_shop" | "lab" | "tampered" {
  if (owner.kind === "other_shop") deps.log?.("foreign_intent", { paymentIntentId: intent.id, shop: owner.shop });
  if (owner.kind === "tampered") {
    const reason = `PaymentIntent ${intent.id} names this shop but ${owner.reason}: its metadata was edited or forged; it is left untouched (no refund, no restore) for a person to look at in the Dashboard.`;
    raiseAlarm("intent_tampered", reason);
    deps.log?.("intent_tampered", { alarm: true, paymentIntentId: intent.id, reason: owner.reason, message: reason });
  }
  return owner.kind;
}
