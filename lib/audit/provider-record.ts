import type Stripe from "stripe";
import { isStripeError } from "../payments/stripe-errors";
import type { AuditWindow } from "./findings";

/**
 * Stripe's record of a window, read page by page (`created[gte|lte]`, newest
 * first, `starting_after`), one request at a time. A page that fails
 * transiently (429 rate_limit, 5xx, a dropped connection) is asked again
 * after a backoff from the cursor it had, so an interrupted read resumes
 * where it stopped rather than starting over. stripe-node retries 409 and
 * 5xx but not 429 (RequestSender._shouldRetry), so the backoff is here.
 */
export interface ReadOptions {
  sleep: (ms: number) => Promise<void>;
  /** Transient failures of one page before the audit gives up. */
  maxTries?: number;
  onRetry?: (what: string, tries: number, err: unknown) => void;
}

export type RecordIntent = Pick<
  Stripe.PaymentIntent,
  "id" | "status" | "amount" | "amount_received" | "currency" | "created" | "metadata"
>;
export type RecordRefund = Pick<
  Stripe.Refund,
  "id" | "amount" | "currency" | "status" | "created" | "failure_reason" | "metadata"
> & {
  payment_intent: string | null;
};

const PAGE = 100;

export async function listIntents(stripe: Stripe, window: AuditWindow, options: ReadOptions): Promise<RecordIntent[]> {
  const created = { gte: seconds(window.from), lte: seconds(window.to) };
  return readPages(
    (startingAfter) =>
      stripe.paymentIntents.list({ created, limit: PAGE, ...(startingAfter ? { starting_after: startingAfter } : {}) }),
    (pi): RecordIntent => ({
      id: pi.id,
      status: pi.status,
      amount: pi.amount,
      amount_received: pi.amount_received,
      currency: pi.currency,
      created: pi.created,
      metadata: pi.metadata,
    }),
    "payment intents",
    options,
  );
}

/** Refunds created from the window's start until now: a refund comes after its payment, however much later. */
export async function listRefunds(stripe: Stripe, since: Date, options: ReadOptions): Promise<RecordRefund[]> {
  const created = { gte: seconds(since) };
  return readPages(
    (startingAfter) =>
      stripe.refunds.list({ created, limit: PAGE, ...(startingAfter ? { starting_after: startingAfter } : {}) }),
    (refund): RecordRefund => ({
      id: refund.id,
      amount: refund.amount,
      currency: refund.currency,
      status: refund.status,
      created: refund.created,
      failure_reason: refund.failure_reason,
      metadata: refund.metadata,
      payment_intent:
        typeof refund.payment_intent === "string" ? refund.payment_intent : (refund.payment_intent?.id ?? null),
    }),
    "refunds",
    options,
  );
}

async function readPages<T extends { id: string }, R>(
  fetchPage: (startingAfter: string | undefined) => Promise<Stripe.ApiList<T>>,
  keep: (item: T) => R,
  what: string,
  options: ReadOptions,
): Promise<R[]> {
  const items: R[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await withBackoff(() => fetchPage(startingAfter), what, options);
    for (const item of page.data) items.push(keep(item));
    const last = page.data[page.data.length - 1];
    if (!page.has_more || !last) return items;
    startingAfter = last.id;
  }
}

/** Full jitter, doubling from half a second, capped at 30 s. */
export async function withBackoff<T>(call: () => Promise<T>, what: string, options: ReadOptions): Promise<T> {
  const maxTries = options.maxTries ?? 8;
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (err) {
      if (!isTransient(err) || tries >= maxTries) throw err;
      options.onRetry?.(what, tries, err);
      await options.sleep(Math.random() * Math.min(30_000, 500 * 2 ** (tries - 1)));
    }
  }
}

/** By the error's `type`, not `instanceof` (see stripe-errors.ts): the maintenance timer's bundle has its own SDK classes. */
function isTransient(err: unknown): boolean {
  if (!isStripeError(err)) return false;
  const type = (err as { type: string }).type;
  if (type === "StripeRateLimitError" || type === "StripeConnectionError" || type === "StripeAPIError") return true;
  return (err.statusCode ?? 0) >= 500 || err.statusCode === 429;
}

function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
