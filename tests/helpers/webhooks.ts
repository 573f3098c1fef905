import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import type { EmulatorClient, WebhookPatch, WebhooksView } from "@checkout/stripe-emulator/client";
import { EMULATOR_WEBHOOK_SECRET } from "@/lib/env";

/**
 * Stripe's side of a webhook delivery, for tests: events in Stripe's shape,
 * signed by the real SDK (`generateTestHeaderString`, the same HMAC Stripe
 * computes), posted to the app like Stripe posts them.
 */
const sdk = new Stripe("sk_test_signing_only");

export interface StripeEventLike {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  data: { object: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: null; idempotency_key: null };
  type: string;
}

export function stripeEvent(
  type: string,
  object: object,
  id = `evt_${randomBytes(12).toString("hex")}`,
): StripeEventLike {
  return {
    id,
    object: "event",
    api_version: "2026-10-28.endive",
    created: Math.floor(Date.now() / 1000),
    data: { object: structuredClone(object) as Record<string, unknown> },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

export interface Delivery {
  /** The raw body; defaults to the event as JSON. */
  payload?: string;
  /** Seconds since the epoch written into the signature; defaults to now. */
  timestamp?: number;
  secret?: string;
  /** null: send no Stripe-Signature header. */
  signature?: string | null;
}

export function sign(payload: string, options: { timestamp?: number; secret?: string } = {}): string {
  return sdk.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? EMULATOR_WEBHOOK_SECRET,
    timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
  });
}

/** POSTs one delivery of `event` to the app's endpoint, as Stripe would. */
export interface DeliveryAnswer {
  status: number;
  /** `{ received, duplicate }` or `{ error, message }`. */
  body: { received?: boolean; duplicate?: boolean; error?: string; message?: string } | null;
}

export async function deliver(
  appUrl: string,
  event: StripeEventLike,
  delivery: Delivery = {},
): Promise<DeliveryAnswer> {
  const payload = delivery.payload ?? JSON.stringify(event, null, 2);
  const signature = delivery.signature === undefined ? sign(payload, delivery) : delivery.signature;
  const res = await fetch(`${appUrl}/api/webhooks/stripe`, {
    method: "POST",
    headers: {
      "content-type": "application/json; charset=utf-8",
      ...(signature === null ? {} : { "stripe-signature": signature }),
    },
    body: payload,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as DeliveryAnswer["body"]) : null };
}

/** Points the emulator's deliveries at `appUrl`'s endpoint, signed as the app expects, with `patch` merged in. */
export function deliverTo(emulator: EmulatorClient, appUrl: string, patch: WebhookPatch = {}): Promise<WebhooksView> {
  return emulator.webhooks({ url: `${appUrl}/api/webhooks/stripe`, secret: EMULATOR_WEBHOOK_SECRET, ...patch });
}
