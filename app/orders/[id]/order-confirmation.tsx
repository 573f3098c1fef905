"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { ApiError } from "@/lib/checkout-client/api";
import { cardLabel } from "@/lib/checkout-client/card-label";
import { orderQuery } from "@/lib/checkout-client/queries";
import type { OrderView } from "@/lib/checkout-client/types";
import { payAgain, useCart } from "@/lib/checkout-client/use-cart";
import { LocalTime, OrderLines, StatusBadge } from "@/app/_components/order-lines";
import { formatMoney } from "@/lib/money";

const HEADINGS = {
  paid: "Thank you — your order is paid",
  failed: "Payment declined",
  pending: "Payment in progress",
  processing: "Your payment is on its way",
} as const;

/**
 * The confirmation a shopper lands on after paying, and any order's page
 * later; `initial`, the order as the page was rendered with it (then kept
 * fresh by the query).
 */
export function OrderConfirmation({ id, initial }: { id: string; initial?: OrderView }) {
  const order = useQuery({ ...orderQuery(id), initialData: initial });
  const heading = useRef<HTMLHeadingElement>(null);
  const loaded = order.data !== undefined;
  // A client-side navigation leaves focus on the old page's button: start reading here.
  useEffect(() => {
    if (loaded) heading.current?.focus();
  }, [loaded]);

  if (order.isPending) return <p className="muted">Loading your order…</p>;
  if (order.isError) {
    const missing = order.error instanceof ApiError && order.error.status === 404;
    return (
      <section aria-labelledby="order-heading">
        <h1 id="order-heading">{missing ? "Order not found" : "This order could not be loaded"}</h1>
        <p>{missing ? "There is no such order in this browser’s history." : "Please try again in a moment."}</p>
        <p>
          <Link href="/orders">See all your orders</Link>
        </p>
      </section>
    );
  }

  const o = order.data;
  return (
    <section aria-labelledby="order-heading" className={`confirmation confirmation-${o.status}`}>
      <h1 id="order-heading" ref={heading} tabIndex={-1}>
        {o.failedLaterAt ? "Your payment did not go through" : HEADINGS[o.status]}
      </h1>
      <p className="order-meta">
        <StatusBadge status={o.status} failedLater={o.failedLaterAt !== null} /> Order <code>{o.id.slice(0, 8)}</code> ·{" "}
        <LocalTime iso={o.createdAt} />
      </p>
      <RefundNotice order={o} />
      {o.failedLaterAt && <FailedLater order={o} />}
      <div className="panel">
        <OrderLines order={o} />
        <dl className="payment-facts">
          {o.status === "paid" && cardLabel(o.cardBrand, o.cardLast4) && (
            <div>
              <dt>Paid with</dt>
              <dd>{cardLabel(o.cardBrand, o.cardLast4)}</dd>
            </div>
          )}
          {o.receiptEmail && (
            <div>
              <dt>Receipt to</dt>
              <dd>{o.receiptEmail}</dd>
            </div>
          )}
          <div>
            <dt>Payment reference</dt>
            <dd>
              <code>{o.paymentIntentId ?? "—"}</code>
            </dd>
          </div>
          {o.refundedAt && (
            <div>
              <dt>Refunded</dt>
              <dd>
                <LocalTime iso={o.refundedAt} />
              </dd>
            </div>
          )}
          {(o.refunds ?? []).map((refund, i) => (
            <div key={i} data-testid="order-refund">
              <dt>
                {refund.status === "failed"
                  ? "Refund failed"
                  : refund.status === "pending"
                    ? "Refund on its way"
                    : "Refunded"}
              </dt>
              <dd>
                {formatMoney(refund.amountCents, o.currency)} · <LocalTime iso={refund.createdAt} />
              </dd>
            </div>
          ))}
          {o.declineCode && (
            <div>
              <dt>Decline reason</dt>
              <dd>{o.declineCode.replaceAll("_", " ")}</dd>
            </div>
          )}
        </dl>
      </div>
      {o.attempts.length > 1 && (
        <section aria-labelledby="attempts-heading" className="panel">
          <h2 id="attempts-heading">Payment attempts</h2>
          <ol aria-label="Payment attempts">
            {o.attempts.map((attempt) => (
              <li key={attempt.orderId}>
                <StatusBadge status={attempt.status} /> <LocalTime iso={attempt.createdAt} />
                {attempt.declineCode && <span className="muted"> · {attempt.declineCode.replaceAll("_", " ")}</span>}
              </li>
            ))}
          </ol>
        </section>
      )}
      <p className="actions">
        <Link href="/" className="button-link">
          Continue shopping
        </Link>
        <Link href="/orders">All your orders</Link>
      </p>
    </section>
  );
}

/**
 * A debit the shopper was told was on its way, failed by their bank: the
 * checkout reopened, and "Pay again" pays that same checkout (one order, its
 * attempts inside it) unless another attempt has paid or is paying it.
 */
function FailedLater({ order }: { order: OrderView }) {
  const router = useRouter();
  const cart = useCart();
  const [refused, setRefused] = useState<string | null>(null);
  const settledBy = order.attempts.find((a) => a.status !== "failed");
  if (settledBy) {
    return (
      <p className="notice-failed">
        Your bank refused this direct debit; the order has another payment since.{" "}
        <Link href={`/orders/${settledBy.orderId}`}>See the order as it stands</Link>
      </p>
    );
  }
  const lines = order.lines.map(({ sku, quantity }) => ({ sku, quantity }));
  return (
    <div className="notice-failed">
      <p>
        Your bank refused the direct debit after it was on its way, so this order is not paid and nothing was taken. Pay
        it again, by card or another method.
      </p>
      {cart.count > 0 && (
        <p>
          Your cart already holds {cart.count === 1 ? "1 item" : `${cart.count} items`}: they stay in it, and this
          order’s items join them. Remove at checkout what you do not want.
        </p>
      )}
      {refused && (
        <p role="alert" className="notice-failed">
          {refused}
        </p>
      )}
      <p className="actions">
        <button
          type="button"
          onClick={() => {
            payAgain(order.checkoutId, lines).then(
              (outcome) =>
                outcome === "other_paying"
                  ? setRefused(
                      "Another payment of your cart is under way (in another tab, or at your bank). Finish it, or let it fail, before paying this order again.",
                    )
                  : router.push("/checkout"),
              () => setRefused("The shop did not answer. Press Pay again to try once more."),
            );
          }}
        >
          Pay again
        </button>
      </p>
    </div>
  );
}

/** Said plainly, because the shopper was told something else at the time. */
function RefundNotice({ order }: { order: OrderView }) {
  if (!order.refundedAt && order.refundFailedAt)
    return (
      <p role="alert" className="notice notice-refund">
        The refund of this payment did not go through: your bank refused it, so the money has not come back to your card
        yet. We have been told and will return it to you another way.
      </p>
    );
  if (order.refund === "partial")
    return (
      <p role="status" className="notice notice-refund">
        Partially refunded: {formatMoney(order.refundedCents, order.currency)} of{" "}
        {formatMoney(order.amountCents, order.currency)} was given back to your card. The rest of the order stays paid.
      </p>
    );
  if (!order.refundedAt) return null;
  return (
    <p role="status" className="notice notice-refund">
      {order.refundReason === "late_success"
        ? "This payment succeeded after the attempt was recorded as failed; it was refunded. Nothing was kept — allow a few days for your bank to show it."
        : "This payment was refunded."}
    </p>
  );
}
