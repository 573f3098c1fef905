"use client";

import { useSyncExternalStore } from "react";
import { holdCheckout } from "./cart-checkout";
import { countItems, parseCart, quantityOf, withAdded, withoutPaid, withQuantity } from "./cart";
import type { CartItem } from "./types";

/**
 * The cart in localStorage, shared by every component and every tab (the
 * `storage` event). On the server and during hydration it is `null`: the
 * server cannot know it, and rendering an empty cart first would flash.
 */
export const CART_STORAGE_KEY = "never-twice:cart";

const listeners = new Set<() => void>();
let snapshot: { raw: string | null; items: CartItem[] } = { raw: null, items: [] };
let unsaved: string | null = null; // when localStorage refuses writes, the cart lives as long as the page
/** Orders whose items have already left the cart, shared by the tabs (see removePaidItems). */
const SETTLED_ORDERS_KEY = "never-twice:settled-orders";
const settledInPage = new Set<string>();

function read(): CartItem[] {
  let raw: string | null;
  try {
    raw = unsaved ?? window.localStorage.getItem(CART_STORAGE_KEY);
  } catch {
    raw = unsaved;
  }
  if (raw !== snapshot.raw) snapshot = { raw, items: parseCart(raw) };
  return snapshot.items;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === CART_STORAGE_KEY || event.key === null) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

function write(items: CartItem[]): void {
  const raw = JSON.stringify(items);
  try {
    window.localStorage.setItem(CART_STORAGE_KEY, raw);
    unsaved = null;
  } catch {
    unsaved = raw;
  }
  listeners.forEach((listener) => listener());
}

export function setCartQuantity(sku: string, quantity: number): void {
  write(withQuantity(read(), sku, quantity));
}

/**
 * Takes a paid order's items out of the cart, once per order. The same order
 * is confirmed more than once when a second tab or a duplicate request of the
 * attempt learns the outcome later; by then the shopper may have added the
 * same product again for a new order, which must stay.
 */
export function removePaidItems(orderId: string, paid: CartItem[]): void {
  const settled = settledOrders();
  if (settled.includes(orderId) || settledInPage.has(orderId)) return;
  settledInPage.add(orderId);
  try {
    window.localStorage.setItem(SETTLED_ORDERS_KEY, JSON.stringify([...settled, orderId].slice(-20)));
  } catch {
    // storage refuses writes: this page still remembers
  }
  write(withoutPaid(read(), paid));
}

function settledOrders(): string[] {
  try {
    const value: unknown = JSON.parse(window.localStorage.getItem(SETTLED_ORDERS_KEY) ?? "[]");
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

/**
 * "Pay again" for a checkout that reopened: its lines join the cart (what the
 * shopper put there since stays; the checkout page shows every line before
 * Pay) and the cart holds that checkout, so the next attempt is one of its
 * attempts and its history stays one order. Pressed again, or in another
 * tab, once the checkout is held: nothing is added twice (unless the cart
 * was emptied since). While the cart's own checkout is being paid, nothing
 * changes (`other_paying`).
 */
export async function payAgain(checkoutId: string, lines: CartItem[]): Promise<"ready" | "other_paying"> {
  const held = await holdCheckout(checkoutId, lines);
  if (held === "other_paying") return held;
  if (held === "held" || read().length === 0) write(withAdded(read(), lines));
  return "ready";
}

/** The cart outside React, for decisions taken once on mount. */
export function currentCartItems(): CartItem[] {
  return read();
}

export function useCart() {
  const items = useSyncExternalStore(subscribe, read, () => null);
  return {
    /** null until the browser's copy has been read. */
    items,
    count: items ? countItems(items) : 0,
    quantityOf: (sku: string) => (items ? quantityOf(items, sku) : 0),
    setQuantity: setCartQuantity,
  };
}
