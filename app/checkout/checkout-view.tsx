"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState, type ReactNode } from "react";
import { bodyOf } from "@/lib/checkout-client/attempt-store";
import { checkoutFor } from "@/lib/checkout-client/cart-checkout";
import { locksCart } from "@/lib/checkout-client/checkout-state";
import { priceLines } from "@/lib/checkout-client/price-lines";
import { productsQuery } from "@/lib/checkout-client/queries";
import { useCart } from "@/lib/checkout-client/use-cart";
import { useCheckout } from "@/lib/checkout-client/use-checkout";
import { useSession } from "@/lib/checkout-client/use-session";
import type { CartItem } from "@/lib/checkout-client/types";
import { formatMoney } from "@/lib/money";
import { stripeJs, type StripeJsConfig } from "@/lib/checkout-client/stripe-js";
import { CardForm } from "./card-form";
import { CartLines } from "./cart-lines";
import { PaymentStatus } from "./payment-status";

/** `stripe`: where Stripe.js comes from (the server's configuration); null when no publishable key is set. */
export function CheckoutView({ stripe: config }: { stripe: StripeJsConfig | null }) {
  const session = useSession(); // started now, so pressing Pay does not wait for it
  const router = useRouter();
  const products = useQuery(productsQuery);
  const cart = useCart();
  // Stripe.js is asked for when the checkout renders in the browser, not before (`/pure`).
  const [stripe] = useState(() => (config && typeof window !== "undefined" ? stripeJs(config) : null));
  const checkout = useCheckout(stripe ? () => stripe : undefined);

  // While an attempt is open the page shows what it is paying for, which is
  // what the shop will charge, even if the cart changed in another tab.
  const openBody = checkout.attempt ? bodyOf(checkout.attempt) : null;
  const locked = locksCart(checkout.state);

  // The cart's checkout on the server follows the cart, so every tab of the shopper holds the same one.
  const cartKey = cart.items && !locked && session.data ? JSON.stringify(cart.items) : null;
  useEffect(() => {
    if (cartKey && cartKey !== "[]") void checkoutFor(JSON.parse(cartKey) as CartItem[]).catch(() => undefined);
  }, [cartKey, session.data?.customerId]);

  const paidOrderId = checkout.state.kind === "paid" ? checkout.state.order.orderId : null;
  useEffect(() => {
    if (paidOrderId) router.push(`/orders/${paidOrderId}`);
  }, [paidOrderId, router]);

  if (checkout.state.kind === "paid") {
    return (
      <Shell>
        <PaymentStatus state={checkout.state} onCheckAgain={checkout.checkAgain} />
      </Shell>
    );
  }
  const items = locked && openBody ? inCartOrder(openBody.items, cart.items ?? []) : cart.items;
  if (products.isError) {
    return (
      <Shell>
        <p role="alert">
          The catalogue could not be loaded.{" "}
          <button type="button" onClick={() => products.refetch()}>
            Try again
          </button>
        </p>
      </Shell>
    );
  }
  if (items === null || !products.data)
    return (
      <Shell>
        <p className="muted">Loading your cart…</p>
      </Shell>
    );

  const priced = priceLines(items, products.data);
  if (priced.lines.length === 0) {
    return (
      <Shell>
        <p>
          Your cart is empty. <Link href="/">Browse the catalogue</Link>
        </p>
        <PaymentStatus state={checkout.state} onCheckAgain={checkout.checkAgain} />
      </Shell>
    );
  }

  const total = formatMoney(priced.totalCents, priced.currency);
  return (
    <Shell>
      <div className="checkout-grid">
        <section aria-labelledby="cart-heading" className="panel">
          <h2 id="cart-heading">Your cart</h2>
          <CartLines lines={priced.lines} currency={priced.currency} locked={locked} onQuantity={cart.setQuantity} />
        </section>
        <section aria-labelledby="payment-heading" className="panel">
          <h2 id="payment-heading">Payment</h2>
          {stripe ? (
            <CardForm
              stripe={stripe}
              amountCents={priced.totalCents}
              currency={priced.currency}
              total={total}
              locked={locked}
              pending={checkout.isPending}
              onPay={(createToken) =>
                checkout.payWithCard(
                  priced.lines.map(({ sku, quantity }) => ({ sku, quantity })),
                  createToken,
                )
              }
            />
          ) : (
            <p role="alert">
              Card payments are not set up: set NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY to the account’s publishable key.
            </p>
          )}
          <PaymentStatus state={checkout.state} onCheckAgain={checkout.checkAgain} />
        </section>
      </div>
    </Shell>
  );
}

/** The attempt's lines in the order the shopper added them (its body is sorted by SKU). */
function inCartOrder(items: CartItem[], cart: CartItem[]): CartItem[] {
  const position = (sku: string) => {
    const index = cart.findIndex((item) => item.sku === sku);
    return index === -1 ? cart.length : index;
  };
  return [...items].sort((a, b) => position(a.sku) - position(b.sku));
}

function Shell({ children }: { children: ReactNode }) {
  return (
    <section aria-labelledby="checkout-heading">
      <h1 id="checkout-heading">Checkout</h1>
      {children}
    </section>
  );
}
