"use client";

import { useCart } from "@/lib/checkout-client/use-cart";
import { NavLink } from "./nav-link";

/** The header's way to the cart, with the number of items in it. */
export function CartLink() {
  const { items, count } = useCart();
  return (
    <NavLink href="/checkout" className="cart-link">
      Cart
      {items !== null && (
        <span className="cart-count">
          {count}
          <span className="visually-hidden"> {count === 1 ? "item" : "items"}</span>
        </span>
      )}
    </NavLink>
  );
}
