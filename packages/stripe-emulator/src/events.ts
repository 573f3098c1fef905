import { randomId, unixSeconds } from "./ids";
import { page } from "./ledger";

/** The request an event came from; both null for the shopper's actions on the authentication page, as at Stripe. */
export interface EventRequest {
  id: string | null;
  idempotency_key: string | null;
}

/** Stripe's Event object (the fields stripe-node's types declare for v1 events). */
export interface StripeEvent {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  data: { object: unknown };
  livemode: false;
  pending_webhooks: number;
  request: EventRequest;
  type: string;
}

/** Where events go once recorded: the webhook dispatcher, which calls `delivered` once an endpoint acknowledged the event. */
export interface EventSink {
  endpointCount(): number;
  enqueue(event: StripeEvent, delivered: () => void): void;
}

/**
 * Every event, newest first, as `GET /v1/events` shows them. `data.object` is
 * a snapshot taken when the event happened: later changes to the intent do
 * not leak into it, as at Stripe.
 */
export class EventLog {
  private readonly events: StripeEvent[] = [];

  constructor(private readonly sink: EventSink) {}

  record(type: string, object: unknown, request: EventRequest, apiVersion: string): StripeEvent {
    const event: StripeEvent = {
      id: randomId("evt_"),
      object: "event",
      api_version: apiVersion,
      created: unixSeconds(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: this.sink.endpointCount(),
      request: { ...request },
      type,
    };
    this.events.unshift(event);
    // As at Stripe, `pending_webhooks` counts the endpoints that have not yet acknowledged the event.
    let acknowledged = false;
    this.sink.enqueue(event, () => {
      if (acknowledged) return; // a duplicate delivery of the same event
      acknowledged = true;
      event.pending_webhooks = Math.max(0, event.pending_webhooks - 1);
    });
    return event;
  }

  get(id: string): StripeEvent | undefined {
    return this.events.find((event) => event.id === id);
  }

  list(
    limit: number,
    startingAfter: string | undefined,
    types: string[] | null,
    created: (seconds: number) => boolean = () => true,
    endingBefore?: string,
  ): { data: StripeEvent[]; hasMore: boolean } | null {
    const matching = this.events.filter(
      (event) => created(event.created) && (types === null || types.some((type) => typeMatches(type, event.type))),
    );
    return page(matching, limit, startingAfter, endingBefore);
  }

  get size(): number {
    return this.events.length;
  }
}

/** Stripe's `type` filter accepts a `*` wildcard, e.g. `payment_intent.*`. */
function typeMatches(pattern: string, type: string): boolean {
  if (!pattern.includes("*")) return pattern === type;
  const regex = new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return regex.test(type);
}
