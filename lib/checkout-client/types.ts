/** Shapes of the app's JSON API as the browser sees it (dates arrive as ISO strings). */
import type { OrderView as ServerOrderView } from "@/lib/checkout/orders";
import type { CheckoutRequest } from "@/lib/checkout/request";

export interface Product {
  sku: string;
  name: string;
  priceCents: number;
  currency: string;
}

export interface CartItem {
  sku: string;
  quantity: number;
}

/**
 * The body of POST /api/checkout (docs/contract.md §2) as the page sends it:
 * the cart's checkout on the server, if it has one, and the items on screen
 * (no prices: the server has them).
 */
export type CheckoutBody = Omit<CheckoutRequest, "items"> & { items: CartItem[] };

export interface PaidOrder {
  orderId: string;
  status: "paid";
  amountCents: number;
  currency: string;
  paymentIntentId: string;
}

/** The server's order view as it arrives over JSON (dates become strings). */
export type OrderView = Omit<
  ServerOrderView,
  "createdAt" | "refundedAt" | "refundFailedAt" | "failedLaterAt" | "attempts" | "refunds"
> & {
  createdAt: string;
  refundedAt: string | null;
  refundFailedAt: string | null;
  failedLaterAt: string | null;
  attempts: Array<Omit<ServerOrderView["attempts"][number], "createdAt"> & { createdAt: string }>;
  refunds: Array<{ amountCents: number; status: string; createdAt: string }>;
};

/** GET /api/checkout/{key}. */
export interface AttemptStatus {
  status: "in_progress" | "completed" | "failed";
  response?: { statusCode: number; body: unknown };
}
