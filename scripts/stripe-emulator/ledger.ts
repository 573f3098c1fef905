import { ChargeBook } from "./charges";
import { randomId, unixSeconds } from "./ids";

export type IntentStatus =
  "requires_payment_method" | "requires_confirmation" | "requires_action" | "succeeded" | "canceled";

/** `last_payment_error`: a card decline, or a failed 3-D Secure authentication (which Stripe types invalid_request_error). */
export interface PaymentError {
  type: "card_error" | "invalid_request_error";
  code: string;
  decline_code?: string;
  message: string;
  charge?: string;
  doc_url: string;
  payment_method: { id: string; object: "payment_method"; type: "card" };
}

export type NextAction =
  | { type: "redirect_to_url"; redirect_to_url: { url: string; return_url: string } }
  | { type: "use_stripe_sdk"; use_stripe_sdk: { type: "three_d_secure_redirect"; stripe_js: string; source: string } };

export type CancellationReason = "duplicate" | "fraudulent" | "requested_by_customer" | "abandoned";

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
  allowed_payment_method_types: string[] | null;
  latest_charge: string | null;
  last_payment_error: PaymentError | null;
  metadata: Record<string, string>;
  description: string | null;
  created: number;
  livemode: false;
  confirmation_method: "automatic";
  capture_method: "automatic";
  client_secret: string;
  canceled_at: number | null;
  cancellation_reason: CancellationReason | null;
  customer: null;
  next_action: NextAction | null;
}

export interface NewIntent {
  amount: number;
  currency: string;
  paymentMethod: string | null;
  metadata: Record<string, string>;
  description: string | null;
  /** `allowed_payment_method_types` as given at create (only ever ["card"] here), else null. */
  allowedTypes: string[] | null;
}

/** What the hosted authentication page needs and Stripe does not show on the intent. */
export interface PendingAuthentication {
  returnUrl: string | null;
}

/**
 * The provider's record of truth: every PaymentIntent ever created, declined
 * ones included (as at Stripe), and their charges and refunds. Tests count
 * charges here, not in responses.
 */
export class Ledger {
  // Insertion sequence, because `created` has one-second resolution and tests
  // create many intents per second yet need a stable newest-first order.
  private readonly intents = new Map<string, { seq: number; intent: PaymentIntent }>();
  private nextSeq = 0;
  readonly charges = new ChargeBook();
  /** Intents that ever required action, by id: the page still needs return_url after the shopper acted. */
  readonly authentications = new Map<string, PendingAuthentication>();

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
      allowed_payment_method_types: input.allowedTypes,
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

  /** Every intent, newest first. */
  all(): PaymentIntent[] {
    return [...this.intents.values()].sort((a, b) => b.seq - a.seq).map((entry) => entry.intent);
  }

  /** Newest first; `startingAfter` is an id from a previous page, as in Stripe's cursor pagination. */
  list(limit: number, startingAfter?: string): { data: PaymentIntent[]; hasMore: boolean } | null {
    return page(this.all(), limit, startingAfter);
  }

  get size(): number {
    return this.intents.size;
  }
}

/** Stripe's cursor pagination over a newest-first array; null when the cursor is unknown. */
export function page<T extends { id: string }>(
  newestFirst: T[],
  limit: number,
  startingAfter?: string,
): { data: T[]; hasMore: boolean } | null {
  let start = 0;
  if (startingAfter !== undefined) {
    const index = newestFirst.findIndex((item) => item.id === startingAfter);
    if (index < 0) return null;
    start = index + 1;
  }
  return { data: newestFirst.slice(start, start + limit), hasMore: newestFirst.length > start + limit };
}
