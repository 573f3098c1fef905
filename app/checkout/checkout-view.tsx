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
export function CheckoutView({
  stripe: config,
  paymentMethodTypes = ["card"],
}: {
  stripe: StripeJsConfig | null;
  /** The methods the shop takes (PAYMENT_METHOD_TYPES). */
  paymentMethodTypes?: readonly string[];
}) {
  const session = useSession(); // started now, so pressing Pay does not wait for it
  const router = useRouter();
  const products = useQuery(productsQuery);
  const cart = useCart();
  // Stripe.js is asked for when the checkout renders in the browser, not before (`/pure`).
  const [stripe] = useState(() => (config && typeof window !== "undefined" ? stripeJs(config) : null));
  const checkout = useCheckout(stripe ? () => stripe : undefined);
  // Lines whose quantity field holds a refused number: nothing is paid until they are fixed.
  const [refused, setRefused] = useState<ReadonlySet<string>>(new Set());
  const markRefused = (sku: string, invalid: boolean) =>
    setRefused((now) => (invalid === now.has(sku) ? now : invalid ? new Set(now).add(sku) : without(now, sku)));

  // While an attempt is open the page shows what it is paying for, which is
  // what the shop will charge, even if the cart changed in another tab.
  const openBody = checkout.attempt ? bodyOf(checkout.attempt) : null;
  const locked = locksCart(checkout.state);

  // The cart's checkout on the server follows the cart, so every tab of the shopper holds the same one.
  const cartKey = cart.items && !locked && session.data ? JSON.stringify(cart.items) : null;
  useEffect(() => {
    if (cartKey && cartKey !== "[]") void checkoutFor(JSON.parse(cartKey) as CartItem[]).catch(() => undefined);
  }, [cartKey, session.data?.customerId]);

  // Paid, or on its way (a SEPA debit): the order page follows it from here.
  const paidOrderId =
    checkout.state.kind === "paid"
      ? checkout.state.order.orderId
      : checkout.state.kind === "payment_on_its_way"
        ? checkout.state.orderId
        : null;
  useEffect(() => {
    if (paidOrderId) router.push(`/orders/${paidOrderId}`);
  }, [paidOrderId, router]);

  if (checkout.state.kind === "paid" || checkout.state.kind === "payment_on_its_way") {
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
  // A reload during a payment: the payment is what the page is about, first and
  // without a card form (the card was sent already; a form would invite a second).
  if (locked && checkout.resumed) {
    return (
      <Shell>
        <section aria-labelledby="payment-heading" className="panel">
          <h2 id="payment-heading">Payment</h2>
          <PaymentStatus state={checkout.state} onCheckAgain={checkout.checkAgain} />
        </section>
        <section aria-labelledby="cart-heading" className="panel">
          <h2 id="cart-heading">Your cart</h2>
          <CartLines
            lines={priced.lines}
            currency={priced.currency}
            locked
            onQuantity={cart.setQuantity}
            onInvalid={markRefused}
          />
        </section>
      </Shell>
    );
  }
  return (
    <Shell>
      <div className="checkout-grid">
        <section aria-labelledby="cart-heading" className="panel">
          <h2 id="cart-heading">Your cart</h2>
          <CartLines
            lines={priced.lines}
            currency={priced.currency}
            locked={locked}
            onQuantity={cart.setQuantity}
            onInvalid={markRefused}
          />
        </section>
        <section aria-labelledby="payment-heading" className="panel">
          <h2 id="payment-heading">Payment</h2>
          {stripe ? (
            <CardForm
              stripe={stripe}
              paymentMethodTypes={paymentMethodTypes}
              amountCents={priced.totalCents}
              currency={priced.currency}
              total={total}
              locked={locked}
              held={refused.size > 0 ? "Fix the quantity marked in your cart to pay." : null}
              pending={checkout.isPending}
              onPay={(createToken, receiptEmail) =>
                checkout.payWithCard(
                  priced.lines.map(({ sku, quantity }) => ({ sku, quantity })),
                  createToken,
                  receiptEmail,
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

function without(set: ReadonlySet<string>, sku: string): Set<string> {
  const next = new Set(set);
  next.delete(sku);
  return next;
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
  // The promise is rendered with the page: on a slow phone it is what shows while the cart and the card form load.
  return (
    <section aria-labelledby="checkout-heading">
      <h1 id="checkout-heading">Checkout</h1>
      <p className="checkout-promise muted">
        Prices are the shop’s own: the cart is priced when you pay. However often you press Pay, this cart is charged at
        most once.
      </p>
      {children}
    </section>
  );
}
