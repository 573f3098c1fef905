import { ApiError, requestJson } from "./api";
import { sameItems } from "./cart";
import type { CartItem } from "./types";

/**
 * The cart's checkout on the server (docs/decisions/0027-one-payment-per-checkout.md),
 * held by id in localStorage beside the cart, so every tab of the shopper pays
 * the same one: of two tabs pressing Pay, the shop takes one payment and
 * leads the other to it. Its lines follow the cart while no payment is live
 * (`PUT`); once one is, a changed cart starts a new checkout.
 */
export const CART_CHECKOUT_STORAGE_KEY = "never-twice:cart-checkout";

interface Held {
  id: string;
  items: CartItem[];
}

/** The id of the checkout for `items`: the one held, with its lines set to them if they differ, or a new one. */
export async function checkoutFor(items: CartItem[], send: typeof fetch = fetch): Promise<string> {
  const held = readHeld();
  if (held && sameItems(held.items, items)) return held.id;
  const body = JSON.stringify({ items: items.map(({ sku, quantity }) => ({ sku, quantity })) });
  const init = (method: string): RequestInit => ({ method, headers: { "Content-Type": "application/json" }, body });
  if (held) {
    try {
      const changed = await requestJson<{ id: string }>(`/api/checkouts/${held.id}`, init("PUT"), send);
      return hold({ id: changed.id, items });
    } catch (err) {
      // Paid or paying (409), or not this session's (404): the cart starts a new checkout.
      if (!(err instanceof ApiError && (err.status === 409 || err.status === 404))) throw err;
    }
  }
  const made = await requestJson<{ id: string }>("/api/checkouts", init("POST"), send);
  return hold({ id: made.id, items });
}

/**
 * Holds a checkout that reopened (a debit that failed later), as the server
 * last priced it, so the next Pay belongs to it: `checkoutFor` sets its lines
 * to the cart's if they differ. `already` when it was held; `other_paying`
 * when the cart holds another checkout whose payment is under way (in another
 * tab, at the bank): taking that one's place would let the cart's goods be
 * paid by two checkouts, so nothing changes.
 */
export async function holdCheckout(
  id: string,
  items: CartItem[],
  send: typeof fetch = fetch,
): Promise<"held" | "already" | "other_paying"> {
  const held = readHeld();
  if (held?.id === id) return "already";
  if (held) {
    try {
      const other = await requestJson<{ status: string }>(`/api/checkouts/${held.id}`, { method: "GET" }, send);
      if (other.status === "pending") return "other_paying";
    } catch (err) {
      // Not this session's (404): nothing of the shopper's is under way there.
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
  }
  hold({ id, items });
  return "held";
}

/** The held checkout was paid: the next cart is another checkout. */
export function releaseCheckout(): void {
  try {
    window.localStorage.removeItem(CART_CHECKOUT_STORAGE_KEY);
  } catch {
    // storage refuses writes: nothing was held
  }
}

function hold(held: Held): string {
  try {
    window.localStorage.setItem(CART_CHECKOUT_STORAGE_KEY, JSON.stringify(held));
  } catch {
    // storage refuses writes: this press pays it, the next makes another
  }
  return held.id;
}

function readHeld(): Held | null {
  try {
    const value = JSON.parse(window.localStorage.getItem(CART_CHECKOUT_STORAGE_KEY) ?? "null") as Held | null;
    return typeof value?.id === "string" && Array.isArray(value.items) ? value : null;
  } catch {
    return null;
  }
}
