import { randomId, unixSeconds } from "./ids";

export type IntentStatus = "requires_payment_method" | "requires_confirmation" | "succeeded";

export interface PaymentError {
  type: "card_error";
  code: string;
  decline_code: string;
  message: string;
  charge: string;
  doc_url: string;
  payment_method: { id: string; object: "payment_method"; type: "card" };
}

/** The subset of Stripe's PaymentIntent the app and tests read, same field names. */
export interface PaymentIntent {
  id: string;
  object: "payment_intent";
  amount: number;
  amount_capturable: number;
  amount_received: number;
  currency: string;
  status: IntentStatus;
  payment_method: string | null;
  payment_method_types: string[];
  latest_charge: string | null;
  last_payment_error: PaymentError | null;
  metadata: Record<string, string>;
  description: string | null;
  created: number;
  livemode: false;
  confirmation_method: "automatic";
  capture_method: "automatic";
  client_secret: string;
  canceled_at: null;
  cancellation_reason: null;
  customer: null;
  next_action: null;
}

export interface NewIntent {
  amount: number;
  currency: string;
  paymentMethod: string | null;
  metadata: Record<string, string>;
  description: string | null;
}

/**
 * The provider's record of truth: every PaymentIntent ever created, declined
 * ones included (as at Stripe). Tests count charges here, not in responses.
 */
export class Ledger {
  // Insertion sequence, because `created` has one-second resolution and tests
  // create many intents per second yet need a stable newest-first order.
  private readonly intents = new Map<string, { seq: number; intent: PaymentIntent }>();
  private nextSeq = 0;

  create(input: NewIntent): PaymentIntent {
    const id = randomId("pi_");
    const intent: PaymentIntent = {
      id,
      object: "payment_intent",
      amount: input.amount,
      amount_capturable: 0,
      amount_received: 0,
      currency: input.currency,
      status: input.paymentMethod ? "requires_confirmation" : "requires_payment_method",
      payment_method: input.paymentMethod,
      payment_method_types: ["card"],
      latest_charge: null,
      last_payment_error: null,
      metadata: input.metadata,
      description: input.description,
      created: unixSeconds(),
      livemode: false,
      confirmation_method: "automatic",
      capture_method: "automatic",
      client_secret: `${id}_secret_${randomId("", 25)}`,
      canceled_at: null,
      cancellation_reason: null,
      customer: null,
      next_action: null,
    };
    this.intents.set(id, { seq: this.nextSeq++, intent });
    return intent;
  }

  get(id: string): PaymentIntent | undefined {
    return this.intents.get(id)?.intent;
  }

  /** Newest first; `startingAfter` is an id from a previous page, as in Stripe's cursor pagination. */
  list(limit: number, startingAfter?: string): { data: PaymentIntent[]; hasMore: boolean } | null {
    const newestFirst = [...this.intents.values()].sort((a, b) => b.seq - a.seq).map((entry) => entry.intent);
    let start = 0;
    if (startingAfter !== undefined) {
      const index = newestFirst.findIndex((intent) => intent.id === startingAfter);
      if (index < 0) return null;
      start = index + 1;
    }
    return { data: newestFirst.slice(start, start + limit), hasMore: newestFirst.length > start + limit };
  }

  get size(): number {
    return this.intents.size;
  }
}
