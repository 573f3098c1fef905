"use client";

import Link from "next/link";
import { useCart } from "@/lib/checkout-client/use-cart";

/** A way on to checkout from the catalogue, once there is something to pay for. */
export function CartCallout() {
  const { count } = useCart();
  if (count === 0) return null;
  return (
    <p className="callout">
      <span>
        {count} {count === 1 ? "item" : "items"} in your cart
      </span>
      <Link href="/checkout" className="button-link">
        Go to checkout
      </Link>
    </p>
  );
}
