import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { env } from "@/lib/env";
import { formatMoney } from "@/lib/money";
import { operatorCookie, operatorOf } from "@/lib/ops/credential";
import { operatorOrder } from "@/lib/ops/order-view";
import { isUuid } from "@/lib/uuid";
import { offersCancel } from "@/lib/cancels/operator-cancel";
import { CancelForm } from "./cancel-form";
import { RefundForm } from "./refund-form";

export const metadata: Metadata = { title: "Order · Operations", robots: { index: false, follow: false } };

const when = (date: Date) => date.toISOString().replace("T", " ").slice(0, 16) + " UTC";
const STATES: Record<string, string> = {
  pending: "pending",
  succeeded: "refunded",
  failed: "failed: money owed",
  canceled: "not made",
};
const STATUSES: Record<string, string> = {
  pending: "pending: not paid yet",
  processing: "processing: Stripe decides a debit within days and does not cancel it",
  paid: "paid",
  failed: "failed: nothing charged",
};
const SOURCES: Record<string, string> = {
  operator: "operator",
  late_success: "the shop (late success)",
  provider: "Stripe Dashboard",
};

/** /ops/orders/{orderId}: the order's payment, what was charged, every refund with its state, what remains, and Refund. */
export default async function OpsOrderPage({ params }: { params: Promise<{ orderId: string }> }) {
  const token = env().OPS_TOKEN;
  if (!token) notFound();
  const operator = await operatorOf((await cookies()).get(operatorCookie(await headers()).name)?.value, token);
  if (!operator) redirect("/ops"); // its sign-in
  const { orderId } = await params;
  const order = isUuid(orderId) ? await operatorOrder(orderId) : null;
  if (!order) notFound();
  const money = (cents: number) => formatMoney(cents, order.currency);
  return (
    <section className="ops" aria-labelledby="order-title">
      <h1 id="order-title">Order {order.id}</h1>
      <dl className="ops-facts">
        <dt>Status</dt>
        <dd data-testid="order-status">{STATUSES[order.status] ?? order.status}</dd>
        {order.canceledAt && (
          <>
            <dt>Cancelled</dt>
            <dd data-testid="canceled">
              {when(order.canceledAt)} by an operator{order.cancelReason ? ` (${order.cancelReason})` : ""}
            </dd>
          </>
        )}
        <dt>Payment</dt>
        <dd>{order.paymentIntentId ?? "none"}</dd>
        <dt>Charged</dt>
        <dd data-testid="charged">{order.status === "paid" ? money(order.amountCents) : money(0)}</dd>
        <dt>Refunded</dt>
        <dd data-testid="refunded">{money(order.refundedCents)}</dd>
        <dt>Remains</dt>
        <dd data-testid="remaining">{money(order.remainingCents)}</dd>
        {order.owedCents > 0 && (
          <>
            <dt>Owed to the shopper</dt>
            <dd data-testid="owed" className="notice-refund">
              {money(order.owedCents)}: a refund failed at the card network; give it back another way
            </dd>
          </>
        )}
      </dl>
      <h2>Refunds ({order.refunds.length})</h2>
      {order.refunds.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul className="ops-list" aria-label="Refunds">
          {order.refunds.map((refund) => (
            <li key={refund.id} data-testid="refund" data-state={refund.status}>
              {money(refund.amountCents)}, {STATES[refund.status] ?? refund.status}
              {refund.failureReason ? ` (${refund.failureReason})` : ""}, by {SOURCES[refund.source] ?? refund.source},{" "}
              {when(refund.createdAt)}
              {refund.reason ? `: ${refund.reason}` : ""}
            </li>
          ))}
        </ul>
      )}
      <CancelForm orderId={order.id} offered={offersCancel(order)} />
      <RefundForm orderId={order.id} currency={order.currency} remainingCents={order.remainingCents} />
    </section>
  );
}
