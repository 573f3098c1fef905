import Link from "next/link";

/** An order id this browser's customer has no order under: unknown, malformed or someone else's. */
export default function OrderNotFound() {
  return (
    <section aria-labelledby="order-heading">
      <h1 id="order-heading">Order not found</h1>
      <p>There is no such order in this browser’s history.</p>
      <p>
        <Link href="/orders">See all your orders</Link>
      </p>
    </section>
  );
}
