import Link from "next/link";
import type { ReactNode } from "react";

/** The shop's policies: short and true of this shop, which is a demonstration of a checkout. */
export const POLICIES: Record<string, { title: string; body: ReactNode }> = {
  shipping: {
    title: "Shipping",
    body: (
      <>
        <p>
          Never Twice supply co. is a demonstration of a checkout. Nothing you buy here is shipped: the products, the
          cart and the payment are real enough to test, the parcel is not.
        </p>
        <p>
          Prices are in US dollars and include everything: there is no shipping charge, and the amount on the Pay button
          is the amount charged.
        </p>
      </>
    ),
  },
  returns: {
    title: "Returns and refunds",
    body: (
      <>
        <p>Nothing ships, so nothing comes back. Refunds still happen, and you see each one on your order:</p>
        <ul>
          <li>
            A payment that succeeds after the shop told you it failed is refunded in full, automatically, once. The
            order page says so.
          </li>
          <li>
            An operator may refund all or part of an order; the order page shows how much came back and that the rest
            stays paid.
          </li>
        </ul>
        <p>However often you press Pay, a cart is charged at most once. Allow your bank a few days to show a refund.</p>
      </>
    ),
  },
  privacy: {
    title: "Privacy",
    body: (
      <>
        <p>What the shop keeps, and why:</p>
        <ul>
          <li>
            A session cookie, sealed and unreadable to scripts, naming an anonymous customer number. It is how this
            browser sees its own orders and nobody else’s. There is no account and no tracking.
          </li>
          <li>Your orders: what you bought, what was charged, and the payment’s reference at Stripe.</li>
          <li>
            The email address you give for a receipt, if you give one: stored with the order and passed to Stripe, which
            sends the receipt.
          </li>
          <li>
            Your card number never reaches the shop: you type it into Stripe’s form. Stripe tells the shop the card’s
            brand and last four digits, which your order page shows.
          </li>
          <li>
            The network address your requests come from is used for a short while to slow down abuse, and requests are
            logged to keep the shop running.
          </li>
        </ul>
        <p>
          Payments are processed by <a href="https://stripe.com/privacy">Stripe</a> under its own privacy policy.
        </p>
      </>
    ),
  },
  terms: {
    title: "Terms",
    body: (
      <>
        <p>
          This shop is a demonstration, offered as it is. Its prices are the shop’s own: the cart is priced on the
          server when you pay, and that price is the one charged.
        </p>
        <p>
          A payment the shop records as failed charged nothing. A payment taken when it should not have been is refunded
          (see <Link href="/policies/returns">returns and refunds</Link>).
        </p>
      </>
    ),
  },
};

export const POLICY_LINKS = Object.entries(POLICIES).map(([slug, { title }]) => ({ href: `/policies/${slug}`, title }));
