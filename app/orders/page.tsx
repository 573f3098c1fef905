import type { Metadata } from "next";
import { OrderHistory } from "./order-history";

export const metadata: Metadata = { title: "Your orders" };

export default function OrdersPage() {
  return <OrderHistory />;
}
