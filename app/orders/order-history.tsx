"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ordersQuery } from "@/lib/checkout-client/queries";
import { formatMoney } from "@/lib/money";
import { formatDate, StatusBadge } from "@/app/_components/order-lines";

/** This browser's orders, newest first: one per checkout, its attempts counted inside it. */
export function OrderHistory() {
  const orders = useQuery(ordersQuery);
  return (
    <section aria-labelledby="orders-heading">
      <h1 id="orders-heading">Your orders</h1>
      {orders.isPending && <p className="muted">Loading your orders…</p>}
      {orders.isError && (
        <p role="alert">
          Your orders could not be loaded.{" "}
          <button type="button" onClick={() => orders.refetch()}>
            Try again
          </button>
        </p>
      )}
      {orders.data?.length === 0 && (
        <p>
          No orders yet. <Link href="/">Browse the catalogue</Link>
        </p>
      )}
      {orders.data && orders.data.length > 0 && (
        <ul className="order-list" aria-label="Orders">
          {orders.data.map((order) => (
            <li key={order.id} className="order-row">
              <div>
                <Link href={`/orders/${order.id}`}>Order {order.id.slice(0, 8)}</Link>
                <span className="muted">
                  {" "}
                  · {formatDate(order.createdAt)}
                  {order.refundedAt
                    ? " · refunded"
                    : order.refund === "partial"
                      ? " · partially refunded"
                      : order.refundFailedAt
                        ? " · refund failed"
                        : ""}
                </span>
                <p className="muted order-items">
                  {order.lines.map((line) => `${line.quantity} × ${line.name}`).join(", ")}
                </p>
                {order.attempts.length > 1 && (
                  <p className="muted order-attempts">{order.attempts.length} payment attempts</p>
                )}
              </div>
              <StatusBadge status={order.status} failedLater={order.failedLaterAt !== null} />
              <strong className="order-total">{formatMoney(order.amountCents, order.currency)}</strong>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
