/**
 * Receiving a delivery (docs/contract.md, "Webhooks"): verify Stripe's signature on the raw
 * body, then store the event by its id. Nothing else happens before the
 * acknowledgement, so it takes one HMAC and one insert; processing follows
 * (see process.ts).
 */
import type Stripe from "stripe";
import type { WebhookDeps } from "./deps";
import { storeEvent } from "./inbox";

export type ReceiveResult =
  | { kind: "invalid"; message: string }
  | { kind: "accepted"; eventId: string; type: string; duplicate: boolean }
  /** Signed by Stripe, but PostgreSQL cannot store it (see storeEvent): acknowledged, logged and counted, never processed. */
  | { kind: "unstorable"; eventId: string; type: string };

export async function receiveEvent(
  deps: WebhookDeps,
  delivery: { payload: string; signature: string | null },
): Promise<ReceiveResult> {
  let event: Stripe.Event;
  try {
    // Default tolerance (300 s): an old timestamp is refused like a bad
    // signature, so a captured delivery cannot be replayed later.
    event = deps.stripe.webhooks.constructEvent(delivery.payload, delivery.signature ?? "", deps.webhookSecret);
  } catch (err) {
    const message = err instanceof Error ? firstLine(err.message) : String(err);
    deps.log?.("webhook", { stage: "rejected", reason: message });
    return { kind: "invalid", message };
  }
  if (typeof event.id !== "string" || typeof event.type !== "string" || !event.data?.object) {
    // Signed by the holder of the secret, yet not an event: refuse it like a forgery.
    deps.log?.("webhook", { stage: "rejected", reason: "not a Stripe event" });
    return { kind: "invalid", message: "The payload is not a Stripe event." };
  }
  const paymentIntentId = paymentIntentOf(event);
  const stored = await storeEvent(deps.prisma, {
    id: event.id,
    type: event.type,
    paymentIntentId,
    payload: delivery.payload,
  });
  deps.log?.("webhook", {
    stage: stored === "inserted" ? "received" : stored,
    eventId: event.id,
    type: event.type,
    paymentIntentId,
  });
  if (stored === "unstorable") return { kind: "unstorable", eventId: event.id, type: event.type };
  return { kind: "accepted", eventId: event.id, type: event.type, duplicate: stored === "duplicate" };
}

/** The PaymentIntent an event is about: the object itself, or the one a charge or refund belongs to. */
export function paymentIntentOf(event: Stripe.Event): string | null {
  const object = event.data.object as { object?: string; id?: string; payment_intent?: string | { id: string } | null };
  if (object.object === "payment_intent") return object.id ?? null;
  const pi = object.payment_intent;
  return typeof pi === "string" ? pi : (pi?.id ?? null);
}

/** The SDK's messages add a paragraph of advice; the first line is the reason. */
function firstLine(message: string): string {
  return message.split("\n")[0]!.trim();
}
