import {
  createAttemptStore as createStore,
  MemoryStorage,
  tabStorage,
  type AttemptRecord,
} from "@checkout/idempotency/client";
import type { CheckoutBody } from "./types";

/**
 * A checkout attempt: the cart and card as they were when Pay was first
 * pressed (the card as the ConfirmationToken Stripe.js made of it, which pays
 * once), with the one Idempotency-Key that pays for them; `subject` is the
 * guest it was begun for. The package's attempt store keeps it per tab.
 */
export type CheckoutAttempt = AttemptRecord;

export { mayResend, RESEND_WINDOW_MS } from "@checkout/idempotency/client";

export const ATTEMPT_STORAGE_KEY = "never-twice:checkout-attempt";

export interface AttemptStore {
  /** The open attempt: Pay was pressed and no definitive outcome is known yet. */
  current(): CheckoutAttempt | null;
  /** The open attempt if it is for exactly this body and young enough to resend; otherwise a new attempt (new key). */
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
  // The stored field keeps its name, so a tab's open attempt survives an upgrade with its customer.
  const store = createStore({ storage, storageKey: ATTEMPT_STORAGE_KEY, subjectField: "customerId", newKey, now });
  const items = (list: CheckoutBody["items"]) => JSON.stringify(canonicalItems(list));
  return {
    current: store.current,
    begin: (body, customerId) => store.begin(serializeBody(body), customerId),
    resumable: (wanted) => store.resumable((open) => JSON.stringify(bodyOf(open).items) === items(wanted)),
    finish: store.finish,
  };
}

/** The tab's attempt store: sessionStorage, or memory where it is blocked or there is no window. */
export function tabAttemptStore(): AttemptStore {
  return createAttemptStore(tabStorage());
}

/**
 * One canonical form per cart: lines sorted by SKU, only the fields the
 * server reads. Reordering the cart is then not a new purchase.
 */
export function serializeBody(body: CheckoutBody): string {
  const items = canonicalItems(body.items);
  const receipt = body.receiptEmail ? { receiptEmail: body.receiptEmail } : {};
  const checkout = body.checkoutId !== undefined ? { checkoutId: body.checkoutId } : {};
  return JSON.stringify(
    body.confirmationToken !== undefined
      ? {
          ...checkout,
          items,
          confirmationToken: body.confirmationToken,
          // A card is the default: a card attempt's bytes stay as they were.
          ...(body.paymentMethodType && body.paymentMethodType !== "card"
            ? { paymentMethodType: body.paymentMethodType }
            : {}),
          ...receipt,
        }
      : { ...checkout, items, paymentMethod: body.paymentMethod, ...receipt },
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
