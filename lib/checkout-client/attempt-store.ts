import { MemoryStorage } from "./memory-storage";
import type { CheckoutBody } from "./types";

/**
 * A checkout attempt: the cart and card as they were when Pay was first
 * pressed (the card as the ConfirmationToken Stripe.js made of it, which
 * pays once), with the one Idempotency-Key that pays for them. Kept in
 * sessionStorage (per tab) so re-clicks, retries and a reload mid-payment
 * all send the same key with the same bytes, and the server can answer them
 * as one payment.
 */
export interface CheckoutAttempt {
  key: string;
  /** The exact request body, sent verbatim on every try. */
  bodyJson: string;
  createdAt: number;
  /**
   * The guest the attempt was begun for, when known. Its key is scoped to that
   * customer on the server: sent under another session it would be a new
   * payment, so it is never sent under another session.
   */
  customerId?: string;
}

/**
 * An attempt older than this is never sent again by the page on its own: the
 * server keeps finished keys for 24–48 hours, and a key it has forgotten is a
 * new charge. An old attempt is only read (GET /api/checkout/{key}); paying
 * again takes a press, and a new key.
 */
export const RESEND_WINDOW_MS = 60 * 60 * 1000;

/** Young enough to be sent again without asking the shop first. */
export function mayResend(attempt: CheckoutAttempt, now = Date.now()): boolean {
  return now - attempt.createdAt < RESEND_WINDOW_MS;
}

export const ATTEMPT_STORAGE_KEY = "never-twice:checkout-attempt";

export interface AttemptStore {
  /** The open attempt: Pay was pressed and no definitive outcome is known yet. */
  current(): CheckoutAttempt | null;
  /**
   * The open attempt if it is for exactly this body and young enough to be
   * sent again (see RESEND_WINDOW_MS); otherwise a new attempt (new key)
   * replaces it.
   */
  begin(body: CheckoutBody, customerId?: string): CheckoutAttempt;
  /**
   * The open attempt if it is for exactly these items and young enough to be
   * sent again: a press of Pay then resends it, token and key, rather than
   * making a new token (which, under the same key, would be a changed body).
   */
  resumable(items: CheckoutBody["items"]): CheckoutAttempt | null;
  /** Closes the attempt after a definitive outcome, so the next press makes a new key. */
  finish(key: string): void;
}

export function createAttemptStore(
  storage: Storage = new MemoryStorage(),
  newKey: () => string = () => crypto.randomUUID(),
  now: () => number = Date.now,
): AttemptStore {
  // A browser that refuses to store (quota, disabled storage) would otherwise
  // make every press look like a first press, with a new key each time.
  let backing = storage;
  const write = (value: string) => {
    try {
      backing.setItem(ATTEMPT_STORAGE_KEY, value);
    } catch {
      backing = new MemoryStorage();
      backing.setItem(ATTEMPT_STORAGE_KEY, value);
    }
  };
  const current = () => parseAttempt(safely(() => backing.getItem(ATTEMPT_STORAGE_KEY)));
  return {
    current,
    begin(body, customerId) {
      const bodyJson = serializeBody(body);
      const open = current();
      if (open?.bodyJson === bodyJson && mayResend(open, now())) return open;
      const attempt: CheckoutAttempt = {
        key: newKey(),
        bodyJson,
        createdAt: now(),
        ...(customerId ? { customerId } : {}),
      };
      write(JSON.stringify(attempt));
      return attempt;
    },
    resumable(items) {
      const open = current();
      if (!open || !mayResend(open, now())) return null;
      return JSON.stringify(bodyOf(open).items) === JSON.stringify(canonicalItems(items)) ? open : null;
    },
    finish(key) {
      // Only the attempt that ended: a late outcome of an older one must not close a newer one.
      if (current()?.key === key) safely(() => backing.removeItem(ATTEMPT_STORAGE_KEY));
    },
  };
}

/**
 * One canonical form per cart: lines sorted by SKU, only the fields the
 * server reads. Reordering the cart is then not a new purchase.
 */
export function serializeBody(body: CheckoutBody): string {
  const items = canonicalItems(body.items);
  const receipt = body.receiptEmail ? { receiptEmail: body.receiptEmail } : {};
  return JSON.stringify(
    body.confirmationToken !== undefined
      ? { items, confirmationToken: body.confirmationToken, ...receipt }
      : { items, paymentMethod: body.paymentMethod, ...receipt },
  );
}

function canonicalItems(items: CheckoutBody["items"]): CheckoutBody["items"] {
  return [...items]
    .sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0))
    .map(({ sku, quantity }) => ({ sku, quantity }));
}

export function bodyOf(attempt: CheckoutAttempt): CheckoutBody {
  return JSON.parse(attempt.bodyJson) as CheckoutBody;
}

function parseAttempt(raw: string | null): CheckoutAttempt | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<CheckoutAttempt>;
    if (typeof value.key !== "string" || typeof value.bodyJson !== "string" || typeof value.createdAt !== "number")
      return null;
    JSON.parse(value.bodyJson);
    const customerId = typeof value.customerId === "string" ? { customerId: value.customerId } : {};
    return { key: value.key, bodyJson: value.bodyJson, createdAt: value.createdAt, ...customerId };
  } catch {
    return null; // written by another version of the app, or edited by hand: start afresh
  }
}

function safely<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch {
    return null; // storage disabled: reads as "no open attempt"
  }
}
