import { cardFactsOf } from "./card-numbers";
import { cardFor } from "./cards";
import { ChargeBook } from "./charges";
import type { ConfirmationMethod } from "./confirmation-method";
import { ConfirmationTokens } from "./confirmation-tokens";
import { ANY_TIME, type CreatedRange } from "./created-range";
import { randomId, unixSeconds } from "./ids";
import { compatibleTypes } from "./method-currencies";
import { bankRedirectFacts, bankRedirectTypeOf, type BankRedirectFacts } from "./bank-redirects";
import { isSepaToken, sepaFactsOf, type SepaDebitFacts } from "./sepa";

export type IntentStatus =
  | "requires_payment_method"
  | "requires_confirmation"
  | "requires_action"
  /** A debit Stripe has sent and not yet decided (SEPA Direct Debit): see Settlements. */
  | "processing"
  | "succeeded"
  | "canceled";

/** `last_payment_error`: a card decline, or a failed 3-D Secure authentication (which Stripe types invalid_request_error). */
export interface PaymentError {
  type: "card_error" | "invalid_request_error";
  code: string;
  decline_code?: string;
  message: string;
  charge?: string;
  doc_url: string;
  payment_method: PaymentMethodObject;
}

/** A card PaymentMethod's `card`. */
export interface CardFacts {
  brand: string;
  checks: null;
  country: string;
  display_brand: string;
  exp_month: number;
  exp_year: number;
  fingerprint: string;
  funding: "credit";
  generated_from: null;
  last4: string;
  networks: { available: string[]; preferred: null };
  regulated_status: null;
  three_d_secure_usage: { supported: true };
  wallet: null;
}

/** Stripe's PaymentMethod as errors embed it and `GET /v1/payment_methods/{id}` answers it: a card, a SEPA debit or a bank redirect. */
export type PaymentMethodObject = PaymentMethodBase &
  ({ type: "card"; card: CardFacts } | { type: "sepa_debit"; sepa_debit: SepaDebitFacts } | BankRedirectFacts);

interface PaymentMethodBase {
  id: string;
  object: "payment_method";
  billing_details: { address: null; email: string | null; name: string | null; phone: null; tax_id: null };
  created: number;
  customer: null;
  customer_account: null;
  livemode: false;
  metadata: Record<string, string>;
}

export type NextAction =
  | { type: "redirect_to_url"; redirect_to_url: { url: string; return_url: string } }
  | { type: "use_stripe_sdk"; use_stripe_sdk: { type: "three_d_secure_redirect"; stripe_js: string; source: string } };

export type CancellationReason = "duplicate" | "fraudulent" | "requested_by_customer" | "abandoned";

/**
 * Stripe's PaymentIntent: every field stripe-node's types declare always
 * present (sdk-shapes.test.ts checks), those the emulator does not model null.
 */
export interface PaymentIntent {
  id: string;
  object: "payment_intent";
  amount: number;
  amount_capturable: number;
  amount_received: number;
  application: null;
  application_fee_amount: null;
  automatic_payment_methods: null;
  currency: string;
  status: IntentStatus;
  /** A `pm_…` the emulator made from the test payment method, as Stripe does; never the test token itself. */
  payment_method: string | null;
  payment_method_configuration_details: null;
  payment_method_options: null;
  payment_method_types: string[];
  allowed_payment_method_types: string[] | null;
  excluded_payment_method_types: null;
  latest_charge: string | null;
  last_payment_error: PaymentError | null;
  metadata: Record<string, string>;
  description: string | null;
  created: number;
  livemode: false;
  confirmation_method: ConfirmationMethod;
  /** Stripe's default since API 2024-04-10. */
  capture_method: "automatic_async";
  client_secret: string;
  canceled_at: number | null;
  cancellation_reason: CancellationReason | null;
  customer: null;
  customer_account: null;
  managed_payments: null;
  next_action: NextAction | null;
  on_behalf_of: null;
  payment_record: null;
  processing: null;
  /** Where Stripe would email the receipt; the emulator keeps it and sends nothing. */
  receipt_email: string | null;
  review: null;
  setup_future_usage: null;
  shipping: null;
  source: null;
  statement_descriptor: null;
  statement_descriptor_suffix: null;
  transfer_group: null;
}

export interface NewIntent {
  amount: number;
  currency: string;
  /** The `pm_…` attached at create (see PaymentMethods). */
  paymentMethod: string | null;
  metadata: Record<string, string>;
  description: string | null;
  /** `allowed_payment_method_types` as given at create, else null. */
  allowedTypes: string[] | null;
}

/** What the hosted authentication page needs and Stripe does not show on the intent. */
export interface PendingAuthentication {
  returnUrl: string | null;
  /** The shopper completed it (manual confirmation): the server's confirm then charges without asking again. */
  completed?: boolean;
}

/**
 * The provider's record of truth: every PaymentIntent ever created, declined
 * ones included (as at Stripe), and their charges and refunds. Tests count
 * charges here, not in responses.
 */
export class Ledger {
  private readonly intents = new Map<string, PaymentIntent>();
  // Oldest first by creation time, then insertion (`created` has one-second
  // resolution and tests create many intents per second yet need a stable
  // newest-first order). Appending keeps it sorted; an intent recorded with a
  // past time (history) marks it for one sort before the next read.
  private ordered: PaymentIntent[] = [];
  private position = new Map<string, number>();
  private sorted = true;
  readonly charges = new ChargeBook();
  readonly paymentMethods = new PaymentMethods();
  readonly confirmationTokens = new ConfirmationTokens();
  /** Intents that ever required action, by id: the page still needs return_url after the shopper acted. */
  readonly authentications = new Map<string, PendingAuthentication>();
  /** Debits in `processing`, by intent id, and when Stripe decides them on the emulator's clock. */
  readonly settlements = new Map<string, { dueAt: number; becomes: "succeeded" | "failed" }>();
  /** How far `POST /_emulator/clock` has moved this account's clock ahead of the wall clock, in seconds. */
  clockOffsetSeconds = 0;

  /** Now on the emulator's clock (unix seconds). */
  now(): number {
    return unixSeconds() + this.clockOffsetSeconds;
  }

  create(input: NewIntent, created = unixSeconds()): PaymentIntent {
    const id = randomId("pi_");
    const intent: PaymentIntent = {
      id,
      object: "payment_intent",
      amount: input.amount,
      amount_capturable: 0,
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: null,
      currency: input.currency,
      status: input.paymentMethod ? "requires_confirmation" : "requires_payment_method",
      payment_method: input.paymentMethod,
      payment_method_configuration_details: null,
      payment_method_options: null,
      payment_method_types: input.allowedTypes ? compatibleTypes(input.allowedTypes, input.currency) : ["card"],
      allowed_payment_method_types: input.allowedTypes,
      excluded_payment_method_types: null,
      latest_charge: null,
      last_payment_error: null,
      metadata: input.metadata,
      description: input.description,
      created,
      livemode: false,
      confirmation_method: "automatic",
      capture_method: "automatic_async",
      client_secret: `${id}_secret_${randomId("", 25)}`,
      canceled_at: null,
      cancellation_reason: null,
      customer: null,
      customer_account: null,
      managed_payments: null,
      next_action: null,
      on_behalf_of: null,
      payment_record: null,
      processing: null,
      receipt_email: null,
      review: null,
      setup_future_usage: null,
      shipping: null,
      source: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      transfer_group: null,
    };
    const last = this.ordered[this.ordered.length - 1];
    if (last && last.created > created) this.sorted = false;
    this.intents.set(id, intent);
    this.position.set(id, this.ordered.length);
    this.ordered.push(intent);
    return intent;
  }

  get(id: string): PaymentIntent | undefined {
    return this.intents.get(id);
  }

  /** Every intent, newest first. */
  all(): PaymentIntent[] {
    return [...this.oldestFirst()].reverse();
  }

  /**
   * Newest first, created within `range`; `startingAfter` and `endingBefore`
   * are ids from a previous page, as in Stripe's cursor pagination
   * (`ending_before`: the `limit` intents just newer than it); null when the
   * id is unknown. Binary search on the creation time: a page costs its size,
   * not the ledger's.
   */
  list(
    limit: number,
    startingAfter?: string,
    range: CreatedRange = ANY_TIME,
    endingBefore?: string,
  ): { data: PaymentIntent[]; hasMore: boolean } | null {
    const ordered = this.oldestFirst();
    const low = firstIndex(ordered, (intent) => intent.created >= range.gte);
    let high = firstIndex(ordered, (intent) => intent.created > range.lte);
    if (endingBefore !== undefined) {
      const at = this.position.get(endingBefore);
      if (at === undefined) return null;
      const from = Math.max(low, at + 1);
      const to = Math.min(high, from + limit);
      return { data: ordered.slice(from, Math.max(from, to)).reverse(), hasMore: to < high };
    }
    if (startingAfter !== undefined) {
      const at = this.position.get(startingAfter);
      if (at === undefined) return null;
      high = Math.min(high, at);
    }
    const from = Math.max(low, high - limit);
    return { data: ordered.slice(from, Math.max(from, high)).reverse(), hasMore: from > low };
  }

  get size(): number {
    return this.intents.size;
  }

  private oldestFirst(): PaymentIntent[] {
    if (!this.sorted) {
      this.ordered.sort((a, b) => a.created - b.created); // stable: ties keep the order of insertion
      this.position = new Map(this.ordered.map((intent, i) => [intent.id, i]));
      this.sorted = true;
    }
    return this.ordered;
  }
}

/** The first index of a sorted array at which `test` holds (it holds for every later one), or its length. */
function firstIndex<T>(items: T[], test: (item: T) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (test(items[mid]!)) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** Stripe's cursor pagination over a newest-first array; null when the cursor is unknown. */
export function page<T extends { id: string }>(
  newestFirst: T[],
  limit: number,
  startingAfter?: string,
  endingBefore?: string,
): { data: T[]; hasMore: boolean } | null {
  if (endingBefore !== undefined) {
    // Stripe's ending_before: the `limit` objects just newer than the anchor, still newest first.
    const index = newestFirst.findIndex((item) => item.id === endingBefore);
    if (index < 0) return null;
    const from = Math.max(0, index - limit);
    return { data: newestFirst.slice(from, index), hasMore: from > 0 };
  }
  let start = 0;
  if (startingAfter !== undefined) {
    const index = newestFirst.findIndex((item) => item.id === startingAfter);
    if (index < 0) return null;
    start = index + 1;
  }
  return { data: newestFirst.slice(start, start + limit), hasMore: newestFirst.length > start + limit };
}

/**
 * PaymentMethods made from test payment methods. As at Stripe, passing a test
 * token (`pm_card_visa`) makes a new PaymentMethod with an id of its own, and
 * that id is what the intent and its charge show.
 */
export class PaymentMethods {
  private readonly tokens = new Map<string, { token: string; created: number }>();

  /** A test token, or a PaymentMethod made here. */
  knows(value: string): boolean {
    return this.tokens.has(value) || isTestToken(value);
  }

  /** The PaymentMethod for `value`: itself if made here, a new one for a test token; null when unknown. */
  attach(value: string): string | null {
    if (this.tokens.has(value)) return value;
    if (!isTestToken(value)) return null;
    const id = randomId("pm_");
    this.tokens.set(id, { token: value, created: unixSeconds() });
    return id;
  }

  /** The type of a PaymentMethod made here or of a test token; null when unknown. */
  typeOf(value: string): PaymentMethodObject["type"] | null {
    const token = this.tokens.get(value)?.token ?? value;
    if (isSepaToken(token)) return "sepa_debit";
    const redirect = bankRedirectTypeOf(token);
    if (redirect) return redirect;
    return cardFor(token) ? "card" : null;
  }

  /** The test token a PaymentMethod was made from, which decides how it charges. */
  tokenOf(id: string): string | undefined {
    return this.tokens.get(id)?.token;
  }

  /** A card PaymentMethod's card; only card payment methods are charged as cards. */
  card(id: string): CardFacts {
    const made = this.object(id);
    if (made.type !== "card") throw new Error(`${id} is a ${made.type} PaymentMethod, not a card`);
    return made.card;
  }

  /** The PaymentMethod as Stripe shows it inside an error. */
  object(id: string): PaymentMethodObject {
    const stored = this.tokens.get(id);
    const created = stored?.created ?? unixSeconds();
    const base = {
      id,
      object: "payment_method" as const,
      created,
      customer: null,
      customer_account: null,
      livemode: false as const,
      metadata: {},
    };
    if (stored && isSepaToken(stored.token)) {
      return {
        ...base,
        // Stripe requires the account holder's name and email for a SEPA debit; the test helper gives neither.
        billing_details: { address: null, email: null, name: null, phone: null, tax_id: null },
        type: "sepa_debit",
        sepa_debit: sepaFactsOf(stored.token),
      };
    }
    const redirect = stored ? bankRedirectTypeOf(stored.token) : null;
    if (redirect)
      return {
        ...base,
        billing_details: { address: null, email: null, name: null, phone: null, tax_id: null },
        ...bankRedirectFacts(redirect),
      };
    const card = cardFactsOf(stored?.token ?? "pm_card_visa");
    return {
      ...base,
      billing_details: { address: null, email: null, name: null, phone: null, tax_id: null },
      card: {
        brand: card.brand,
        checks: null,
        country: "US",
        display_brand: card.brand,
        exp_month: 12,
        exp_year: new Date(created * 1000).getUTCFullYear() + 3,
        fingerprint: card.fingerprint,
        funding: "credit",
        generated_from: null,
        last4: card.last4,
        networks: { available: [card.brand], preferred: null },
        regulated_status: null,
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      type: "card",
    };
  }
}

function isTestToken(value: string): boolean {
  return cardFor(value) !== null || isSepaToken(value) || bankRedirectTypeOf(value) !== null;
}
