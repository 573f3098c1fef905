import type { OrderView } from "@/lib/checkout-client/types";
import { formatMoney } from "@/lib/money";

/** An order's lines and total, as recorded by the server at the moment of payment. */
export function OrderLines({ order }: { order: OrderView }) {
  return (
    <table className="order-lines">
      <caption className="visually-hidden">Items in this order</caption>
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col" className="num">
            Qty
          </th>
          <th scope="col" className="num">
            Price
          </th>
          <th scope="col" className="num">
            Subtotal
          </th>
        </tr>
      </thead>
      <tbody>
        {order.lines.map((line) => (
          <tr key={line.sku}>
            <th scope="row">{line.name}</th>
            <td className="num">{line.quantity}</td>
            <td className="num">{formatMoney(line.unitPriceCents, order.currency)}</td>
            <td className="num">{formatMoney(line.unitPriceCents * line.quantity, order.currency)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row" colSpan={3}>
            Total
          </th>
          <td className="num">
            <strong>{formatMoney(order.amountCents, order.currency)}</strong>
          </td>
        </tr>
      </tfoot>
    </table>
  );
}

export const STATUS_LABEL: Record<OrderView["status"], string> = {
  paid: "Paid",
  failed: "Declined",
  pending: "Processing",
  processing: "Payment on its way",
};

/** A debit the bank refused days after it was on its way was never declined at the press: it failed later. */
export function StatusBadge({ status, failedLater = false }: { status: OrderView["status"]; failedLater?: boolean }) {
  return <span className={`badge badge-${status}`}>{failedLater ? "Did not go through" : STATUS_LABEL[status]}</span>;
}

export function formatDate(iso: string): string {
  return new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
}

/**
 * A moment in the reader's time zone. A page rendered on the server says it
 * in the server's zone; the browser's differs, so the text may differ once
 * hydrated (allowed here), and is the reader's from the next render on.
 */
export function LocalTime({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} suppressHydrationWarning>
      {formatDate(iso)}
    </time>
  );
}
