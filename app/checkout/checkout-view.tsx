"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { bodyOf } from "@/lib/checkout-client/attempt-store";
import { locksCart } from "@/lib/checkout-client/checkout-state";
import { priceLines } from "@/lib/checkout-client/price-lines";
import { productsQuery } from "@/lib/checkout-client/queries";
import { useCart } from "@/lib/checkout-client/use-cart";
import { useCheckout } from "@/lib/checkout-client/use-checkout";
import { useSession } from "@/lib/checkout-client/use-session";
import type { CartItem } from "@/lib/checkout-client/types";
import { formatMoney } from "@/lib/money";
import { CardChoice } from "./card-choice";
import { CartLines } from "./cart-lines";
import { PaymentStatus } from "./payment-status";

export function CheckoutView() {
  useSession(); // started now, so pressing Pay does not wait for it
  const router = useRouter();
  const products = useQuery(productsQuery);
  const cart = useCart();
  const checkout = useCheckout();
  const [card, setCard] = useState("pm_card_visa");

  // While an attempt is open the page shows what it is paying for, which is
  // what the shop will charge, even if the cart changed in another tab.
  const openBody = checkout.attempt ? bodyOf(checkout.attempt) : null;
  const locked = locksCart(checkout.state);
  // An attempt opened (or resumed) with another card selects that card; adjusted
  // while rendering rather than in an effect, so no render shows the stale one.
  const openCard = openBody?.paymentMethod;
  const [selectedFor, setSelectedFor] = useState<string | undefined>(undefined);
  if (openCard !== selectedFor) {
    setSelectedFor(openCard);
    if (openCard) setCard(openCard);
  }

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

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    checkout.pay({ items: priced.lines.map(({ sku, quantity }) => ({ sku, quantity })), paymentMethod: card });
  };
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
          <form onSubmit={onSubmit} className="pay-form">
            <CardChoice value={card} disabled={locked} onChange={setCard} />
            <p className="total">
              <span>Total</span> <strong>{total}</strong>
            </p>
            <button type="submit" className="pay-button" disabled={checkout.isPending || locked}>
              Pay {total}
            </button>
            <p className="fine-print muted">
              Prices are the shop’s own. However often you press Pay, this cart is charged at most once.
            </p>
          </form>
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
