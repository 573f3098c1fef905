import { createHmac } from "node:crypto";
import type { EventSink, StripeEvent } from "./events";
import { unixSeconds } from "./ids";
import { defaultWebhookFaults, type WebhookConfig, type WebhookFaults } from "./webhook-config";

export interface WebhookStats {
  enqueued: number;
  delivered: number;
  failedAttempts: number;
  retries: number;
  gaveUp: number;
  duplicatesSent: number;
  dropped: number;
  badSigned: number;
  reorderedBatches: number;
  /** Delivery attempts per event id, duplicates and retries included. */
  attempts: Record<string, number>;
}

interface Delivery {
  eventId: string;
  body: string;
  url: string;
  secret: string;
  attempt: number;
  delivered: () => void;
}

/** Stripe's scheme: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, what `stripe.webhooks.constructEvent` verifies. */
export function signatureHeader(body: string, secret: string, timestamp = unixSeconds()): string {
  const signature = createHmac("sha256", secret).update(`${timestamp}.${body}`, "utf8").digest("hex");
  return `t=${timestamp},v1=${signature}`;
}

/**
 * Delivers events to one endpoint, at least once, in the background: an API
 * request that records an event never waits for (or fails with) its delivery.
 * Failed attempts are retried with exponential backoff up to maxAttempts.
 */
export class WebhookDispatcher implements EventSink {
  faults: WebhookFaults = defaultWebhookFaults();
  readonly stats: WebhookStats = {
    enqueued: 0,
    delivered: 0,
    failedAttempts: 0,
    retries: 0,
    gaveUp: 0,
    duplicatesSent: 0,
    dropped: 0,
    badSigned: 0,
    reorderedBatches: 0,
    attempts: {},
  };
  private held: Delivery[] = [];
  private inFlight = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(public config: WebhookConfig) {}

  endpointCount(): number {
    return this.config.url ? 1 : 0;
  }

  /** Deliveries not yet finished: held for reordering, waiting for a retry, or in flight. */
  get pending(): number {
    return this.held.length + this.timers.size + this.inFlight;
  }

  enqueue(event: StripeEvent, delivered: () => void = () => undefined): void {
    const { url, secret } = this.config;
    if (!url || this.stopped) return;
    this.stats.enqueued += 1;
    // Serialized once, so every copy (duplicates, retries) carries the same bytes, as at Stripe.
    const body = JSON.stringify(event, null, 2);
    const copies = 1 + this.faults.duplicate;
    this.stats.duplicatesSent += this.faults.duplicate;
    for (let i = 0; i < copies; i++) this.hold({ eventId: event.id, body, url, secret, attempt: 1, delivered });
  }

  /** Reorder: keep deliveries until a batch is full, then send it newest first. */
  private hold(delivery: Delivery): void {
    const reorder = this.faults.reorder;
    if (!reorder) return this.schedule(delivery, 0);
    this.held.push(delivery);
    if (this.held.length < reorder.batch) return;
    this.faults.reorder = null;
    this.stats.reorderedBatches += 1;
    this.releaseHeld(true);
  }

  /** Sends what is held (when reorder is switched off, in arrival order). */
  releaseHeld(reversed: boolean): void {
    const batch = reversed ? this.held.reverse() : this.held;
    this.held = [];
    for (const delivery of batch) this.schedule(delivery, 0);
  }

  private schedule(delivery: Delivery, waitMs: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.inFlight += 1;
      void this.attempt(delivery).finally(() => (this.inFlight -= 1));
    }, waitMs + this.faults.delayMs);
    this.timers.add(timer);
  }

  private async attempt(delivery: Delivery): Promise<void> {
    this.stats.attempts[delivery.eventId] = (this.stats.attempts[delivery.eventId] ?? 0) + 1;
    if (await this.send(delivery)) {
      this.stats.delivered += 1;
      delivery.delivered();
      return;
    }
    this.stats.failedAttempts += 1;
    if (delivery.attempt >= this.config.maxAttempts) {
      this.stats.gaveUp += 1;
      return;
    }
    this.stats.retries += 1;
    this.schedule(
      { ...delivery, attempt: delivery.attempt + 1 },
      this.config.retryBaseMs * 2 ** (delivery.attempt - 1),
    );
  }

  /** One POST; true on a 2xx. */
  private async send(delivery: Delivery): Promise<boolean> {
    if (this.faults.dropFirst > 0) {
      // As if the endpoint never answered in time: nothing reaches it, and the attempt counts as failed.
      this.faults.dropFirst -= 1;
      this.stats.dropped += 1;
      return false;
    }
    let secret = delivery.secret;
    if (this.faults.badSignature > 0) {
      this.faults.badSignature -= 1;
      this.stats.badSigned += 1;
      secret = `${secret}_wrong`;
    }
    try {
      const response = await fetch(delivery.url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json; charset=utf-8",
          "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
          "Stripe-Signature": signatureHeader(delivery.body, secret),
        },
        body: delivery.body,
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
      await response.arrayBuffer().catch(() => undefined); // drain, so the connection can be reused
      return response.status >= 200 && response.status < 300;
    } catch {
      return false; // connection refused, reset or timed out
    }
  }

  /** After a reset: nothing more is sent from this dispatcher. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.held = [];
  }
}
