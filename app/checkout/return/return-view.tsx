"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect } from "react";
import { bodyOf, createAttemptStore } from "@/lib/checkout-client/attempt-store";
import {
  addressWithoutClientSecret,
  authenticationReturnQuery,
  type ReturnOutcome,
} from "@/lib/checkout-client/authentication-return";
import { declineReason } from "@/lib/checkout-client/checkout-state";
import { removePaidItems } from "@/lib/checkout-client/use-cart";

/** The outcome of a payment the shopper authenticated (or not) with their bank. */
export function ReturnView({ attemptKey, paymentIntent }: { attemptKey: string | null; paymentIntent: string | null }) {
  const query = useQuery({
    ...authenticationReturnQuery(attemptKey ?? "", paymentIntent),
    enabled: attemptKey !== null,
  });
  const outcome = query.data;
  useEffect(() => {
    // The page reads the key and the PaymentIntent; the client secret Stripe appended leaves the address bar.
    const address = addressWithoutClientSecret(window.location.href);
    if (address) window.history.replaceState(window.history.state, "", address);
  }, []);
  useEffect(() => {
    if (attemptKey && outcome) closeAttempt(attemptKey, outcome);
  }, [attemptKey, outcome]);

  return (
    <section className="return-page" aria-labelledby="return-heading">
      <div role="status" aria-live="polite" aria-atomic="true">
        {attemptKey === null || outcome?.kind === "not_found" ? (
          <NotFound />
        ) : outcome ? (
          <Outcome outcome={outcome} />
        ) : query.isError ? (
          <>
            <h1 id="return-heading">We couldn’t check this payment right now</h1>
            <p>It is the same payment however often you check, so it cannot be charged twice.</p>
            <button type="button" onClick={() => void query.refetch()}>
              Check again
            </button>
          </>
        ) : (
          <h1 id="return-heading">Checking your payment…</h1>
        )}
      </div>
    </section>
  );
}

function Outcome({ outcome }: { outcome: Exclude<ReturnOutcome, { kind: "not_found" }> }) {
  switch (outcome.kind) {
    case "paid":
      return (
        <>
          <h1 id="return-heading">Paid — thank you</h1>
          <p>
            Your bank confirmed the payment. <Link href={`/orders/${outcome.order.orderId}`}>View your order</Link>
          </p>
        </>
      );
    case "requires_action":
      return (
        <>
          <h1 id="return-heading">Authentication not finished</h1>
          <p>Your bank is still waiting for you to confirm this payment. Nothing has been charged yet.</p>
          <p>
            <a href={outcome.url}>Continue authentication</a> · <Link href="/checkout">Back to checkout</Link>
          </p>
        </>
      );
    case "failed":
      return (
        <>
          <h1 id="return-heading">{titleOf(outcome.error)}</h1>
          <p>
            {outcome.error === "card_declined" ? declineReason(outcome.code, outcome.message) : outcome.message} Nothing
            was charged.
          </p>
          <p>
            <Link href="/checkout">Back to checkout</Link> to try again with this or another card.
          </p>
        </>
      );
  }
}

function NotFound() {
  return (
    <>
      <h1 id="return-heading">We couldn’t find this payment</h1>
      <p>
        No payment of this browser’s matches this link. If you started it in another browser or app and confirmed it
        with your bank, the shop completes it within a few minutes: please don’t pay again before you have checked your
        orders in the browser where you started.
      </p>
      <p>
        <Link href="/orders">See your orders</Link>
      </p>
    </>
  );
}

function titleOf(error: string): string {
  if (error === "authentication_failed") return "Authentication failed";
  if (error === "card_declined") return "Card declined";
  return "Payment not completed";
}

/** A definitive outcome closes this tab's attempt, so the next press of Pay is a new payment. */
function closeAttempt(key: string, outcome: ReturnOutcome) {
  if (outcome.kind === "requires_action" || outcome.kind === "not_found") return;
  try {
    const store = createAttemptStore(window.sessionStorage);
    const open = store.current();
    if (open?.key !== key) return;
    if (outcome.kind === "paid") removePaidItems(outcome.order.orderId, bodyOf(open).items);
    store.finish(key);
  } catch {
    // storage blocked: nothing was kept to close
  }
}
