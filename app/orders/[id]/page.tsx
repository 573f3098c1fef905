import type { Metadata } from "next";
import { notFound } from "next/navigation";
import type { OrderView } from "@/lib/checkout-client/types";
import { findOrder } from "@/lib/checkout/orders";
import { db } from "@/lib/db";
import { isUuid } from "@/lib/http";
import { pageCustomerId } from "@/lib/session";
import { OrderConfirmation } from "./order-confirmation";

export const metadata: Metadata = { title: "Your order" };

/** One of this browser's orders; any other id (unknown, malformed, someone else's) answers 404. */
export default async function OrderPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const customerId = await pageCustomerId();
  const order = customerId !== null && isUuid(id) ? await findOrder(db(), customerId, id.toLowerCase()) : null;
  if (!order) notFound();
  // Rendered with the page, as the API would answer it: the confirmation is on screen before any script runs.
  return <OrderConfirmation id={id} initial={JSON.parse(JSON.stringify(order)) as OrderView} />;
}
