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

export const TEST_CARDS = [
  { id: "pm_card_visa", label: "Visa — succeeds", hint: "4242 4242 4242 4242" },
  { id: "pm_card_chargeDeclined", label: "Visa — declined", hint: "4000 0000 0000 0002 · generic decline" },
  {
    id: "pm_card_chargeDeclinedInsufficientFunds",
    label: "Visa — insufficient funds",
    hint: "4000 0000 0000 9995 · declined",
  },
  {
    id: "pm_card_threeDSecure2Required",
    label: "Visa — 3-D Secure",
    hint: "4000 0027 6000 3184 · your bank asks you to confirm",
  },
] as const;

/** The body of POST /api/checkout (docs/contract.md §2): the server's own schema type; no prices, the server has them. */
export type CheckoutBody = CheckoutRequest;

export interface PaidOrder {
  orderId: string;
  status: "paid";
  amountCents: number;
  currency: string;
  paymentIntentId: string;
}

/** The server's order view as it arrives over JSON (dates become strings). */
export type OrderView = Omit<ServerOrderView, "createdAt" | "refundedAt" | "refundFailedAt"> & {
  createdAt: string;
  refundedAt: string | null;
  refundFailedAt: string | null;
};

/** GET /api/checkout/{key}. */
export interface AttemptStatus {
  status: "in_progress" | "completed" | "failed";
  response?: { statusCode: number; body: unknown };
}
