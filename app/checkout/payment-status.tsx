"use client";

import Link from "next/link";
import { useEffect, useRef } from "react";
import { declineReason, type CheckoutState } from "@/lib/checkout-client/checkout-state";

/**
 * The payment's state in words, in a polite live region so screen readers
 * hear each change. When an outcome needs the shopper's attention, focus
 * moves here: the Pay button they pressed was disabled and held no focus.
 */
export function PaymentStatus({ state, onCheckAgain }: { state: CheckoutState; onCheckAgain: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const needsAttention = !["idle", "paying", "checking", "paid", "payment_on_its_way"].includes(state.kind);
  useEffect(() => {
    if (needsAttention) box.current?.focus();
  }, [state.kind, needsAttention]);

  return (
    <div
      ref={box}
      tabIndex={-1}
      className={`payment-status status-${tone(state)}`}
      role="status"
      aria-live="polite"
      aria-atomic="true"
    >
      <StatusText state={state} onCheckAgain={onCheckAgain} />
    </div>
  );
}

function StatusText({ state, onCheckAgain }: { state: CheckoutState; onCheckAgain: () => void }) {
  const checkAgain = (
    <button type="button" className="secondary" onClick={onCheckAgain}>
      Check again
    </button>
  );
  switch (state.kind) {
    case "idle":
      return null;
    case "paying":
      return state.retry === 0 ? (
        <p>
          <Spinner /> <strong>Paying…</strong> Please keep this page open.
        </p>
      ) : (
        <p>
          <Spinner /> <strong>Still processing — retry {state.retry}</strong>
          <span className="status-detail">
            The payment is taking longer than usual. Every retry is the same payment, so your card is charged at most
            once.
          </span>
        </p>
      );
    case "checking":
      return (
        <p>
          <Spinner /> <strong>Checking what happened to your payment…</strong>
        </p>
      );
    case "paid":
      return (
        <p>
          <strong>Paid.</strong> <Link href={`/orders/${state.order.orderId}`}>View your order</Link>
        </p>
      );
    case "payment_on_its_way":
      return (
        <p>
          <strong>Your payment is on its way.</strong>{" "}
          <span className="status-detail">
            Your bank takes a few days to confirm it. There is nothing more to do: don’t pay again.
          </span>{" "}
          <Link href={`/orders/${state.orderId}`}>Follow your order</Link>
        </p>
      );
    case "declined":
      return (
        <p>
          <strong>{failureTitle(state)}</strong>
          <span className="status-detail">Nothing was charged. Choose another card and press Pay to try again.</span>
        </p>
      );
    case "authenticating":
      return (
        <p>
          <strong>Waiting for your bank.</strong>
          <span className="status-detail">
            Your bank asks you to confirm this payment. Nothing is charged until you do.{" "}
            {state.url ? (
              <a href={state.url}>Continue to your bank</a>
            ) : (
              "Answer your bank in the window it opened on this page."
            )}
          </span>
        </p>
      );
    case "authentication_pending":
      return (
        <div>
          <p>
            <strong>Your bank is still waiting for you.</strong>
            <span className="status-detail">
              The window to confirm this payment closed before you answered it. Nothing is charged until you do.
            </span>
          </p>
          <button type="button" className="secondary" onClick={onCheckAgain}>
            Continue with your bank
          </button>
        </div>
      );
    case "processing":
      return (
        <div>
          <p>
            <strong>Still processing.</strong>
            <span className="status-detail">
              The shop is still confirming this payment with the bank. It will be charged at most once; check again in a
              moment.
            </span>
          </p>
          {checkAgain}
        </div>
      );
    case "unreachable":
      return (
        <div>
          <p>
            <strong>We couldn’t reach the shop to confirm your payment.</strong>
            <span className="status-detail">
              Check your connection, then check again. It is the same payment, so it cannot be charged twice.
            </span>
          </p>
          {checkAgain}
        </div>
      );
    case "not_recorded":
      return (
        <p>
          <strong>The payment didn’t reach the shop, so nothing was charged.</strong>
          <span className="status-detail">Press Pay to send it again.</span>
        </p>
      );
    case "no_record":
      return (
        <p>
          <strong>We have no record of this payment — check your orders.</strong>
          <span className="status-detail">
            The shop can no longer tell whether it went through. Look in <Link href="/orders">your orders</Link> (or
            your card statement) before paying again; pressing Pay starts a new payment.
          </span>
        </p>
      );
    case "session_lost":
      return (
        <div>
          <p>
            <strong>Your session with the shop ended during this payment.</strong>
            <span className="status-detail">
              The payment may already have gone through, so it was not sent again. Check again to ask the shop about it.
            </span>
          </p>
          {checkAgain}
        </div>
      );
    case "rejected":
      return (
        <p>
          <strong>{state.message}</strong>
        </p>
      );
  }
}

function failureTitle(state: Extract<CheckoutState, { kind: "declined" }>): string {
  if (state.error === "card_declined") return `Card declined: ${declineReason(state.declineCode, state.message)}`;
  if (state.error === "authentication_failed") return "Authentication failed: your bank did not confirm the payment.";
  return `Payment not completed: ${state.message}`;
}

function tone(state: CheckoutState): "info" | "success" | "danger" | "warn" | "none" {
  switch (state.kind) {
    case "idle":
      return "none";
    case "paid":
    case "payment_on_its_way":
      return "success";
    case "declined":
    case "rejected":
      return "danger";
    case "processing":
    case "unreachable":
    case "not_recorded":
    case "no_record":
    case "session_lost":
      return "warn";
    default:
      return "info";
  }
}

function Spinner() {
  return <span className="spinner" aria-hidden="true" />;
}
