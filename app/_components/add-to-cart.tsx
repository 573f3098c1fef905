"use client";

import { useEffect, useRef } from "react";
import { useCart } from "@/lib/checkout-client/use-cart";

/**
 * "Add to cart", then a quantity stepper. When one control replaces the
 * other, focus moves to its replacement so keyboard users are not dropped
 * back to the top of the page.
 */
export function AddToCart({ sku, name }: { sku: string; name: string }) {
  const cart = useCart();
  const quantity = cart.quantityOf(sku);
  const addRef = useRef<HTMLButtonElement>(null);
  const moreRef = useRef<HTMLButtonElement>(null);
  const moveFocus = useRef<"add" | "more" | null>(null);

  useEffect(() => {
    if (moveFocus.current === "add") addRef.current?.focus();
    if (moveFocus.current === "more") moreRef.current?.focus();
    moveFocus.current = null;
  }, [quantity]);

  const change = (next: number) => {
    if (next === 0) moveFocus.current = "add";
    if (quantity === 0) moveFocus.current = "more";
    cart.setQuantity(sku, next);
  };

  if (quantity === 0) {
    return (
      <button
        ref={addRef}
        type="button"
        className="add-button"
        disabled={cart.items === null}
        onClick={() => change(1)}
      >
        Add to cart<span className="visually-hidden"> {name}</span>
      </button>
    );
  }
  return (
    <div className="stepper" role="group" aria-label={`${name} in cart`}>
      <button
        type="button"
        className="secondary"
        aria-label={`Remove one ${name}`}
        onClick={() => change(quantity - 1)}
      >
        −
      </button>
      <span className="stepper-count" aria-live="polite">
        {quantity} <span className="muted">in cart</span>
      </span>
      <button
        ref={moreRef}
        type="button"
        className="secondary"
        aria-label={`Add one more ${name}`}
        disabled={quantity >= 99}
        onClick={() => change(quantity + 1)}
      >
        +
      </button>
    </div>
  );
}
