import { sendOnce, type Answer, type SendOptions } from "@checkout/idempotency/client";
import type { CheckoutAttempt } from "./attempt-store";
import { CheckoutFailure, parseRetryAfter } from "./checkout-failure";
import type { PaidOrder } from "./types";

/** What one attempt's POST /api/checkout came to, as the page reads it. */
export type PaymentResult =
  | { kind: "paid"; order: PaidOrder }
  /** Nothing was charged: `error` is `card_declined`, `authentication_failed`, `authentication_abandoned` or `payment_failed`. */
  | { kind: "declined"; error: string; declineCode: string; message: string }
  /**
   * 3-D Secure: the shopper confirms the payment with their bank, at `url`
   * (a redirect) or in this page through Stripe.js with the client secret;
   * the attempt stays open.
   */
  | { kind: "requires_action"; action: NextAction; orderId: string }
  /** Stripe accepted the payment and decides later (a SEPA debit): nothing more to do, nothing to pay again. */
  | { kind: "payment_on_its_way"; orderId: string }
  /**
   * The cart's checkout already has a payment (another tab's, window's or
   * device's): this attempt was refused with nothing stored, and `key` is
   * the attempt that pays; its state is the checkout's.
   */
  | { kind: "has_payment"; key: string; status: string };

export type NextAction = { type: "redirect"; url: string } | { type: "use_stripe_sdk"; clientSecret: string };

export const CHECKOUT_URL = "/api/checkout";

/** One try of POST /api/checkout with the attempt's key and bytes: the package's `sendOnce`, read as a payment. */
export async function postCheckout(attempt: CheckoutAttempt, options: SendOptions = {}): Promise<PaymentResult> {
  return paymentResultOf(await sendOnce({ url: CHECKOUT_URL, key: attempt.key, bodyJson: attempt.bodyJson }, options));
}

/** The one reading of a final answer to POST /api/checkout (201, 202, 402, 409 checkout_has_payment; anything else is thrown). */
export function paymentResultOf(answer: Answer): PaymentResult {
  return resultOf(answer, answer.body);
}

export function resultOf(response: { status: number; headers: Headers }, body: unknown): PaymentResult {
  if (response.status === 201 && isPaidOrder(body)) return { kind: "paid", order: body };
  if (response.status === 402) return declinedFrom(body);
  const action = requiredAction(body);
  if (response.status === 202 && action) return action;
  const onItsWay = response.status === 202 ? paymentOnItsWay(body) : null;
  if (onItsWay) return onItsWay;
  const conflict = body as { error?: unknown; key?: unknown; status?: unknown } | null;
  if (response.status === 409 && conflict?.error === "checkout_has_payment" && typeof conflict.key === "string")
    return { kind: "has_payment", key: conflict.key, status: String(conflict.status) };
  const error = body as { error?: unknown; message?: unknown } | null;
  throw new CheckoutFailure(
    {
      kind: "http",
      status: response.status,
      code: typeof error?.error === "string" ? error.error : "unexpected_response",
      retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
    },
    typeof error?.message === "string" ? error.message : `The shop answered HTTP ${response.status}.`,
  );
}

export function declinedFrom(body: unknown): PaymentResult {
  const answer = body as { error?: unknown; declineCode?: unknown; code?: unknown; message?: unknown } | null;
  const error = typeof answer?.error === "string" ? answer.error : "card_declined";
  const code = [answer?.declineCode, answer?.code].find((c): c is string => typeof c === "string");
  return {
    kind: "declined",
    error,
    declineCode: code ?? error,
    message: typeof answer?.message === "string" ? answer.message : "Your card was declined.",
  };
}

/** A `202 processing` body: the payment is on its way. */
export function paymentOnItsWay(body: unknown): Extract<PaymentResult, { kind: "payment_on_its_way" }> | null {
  const answer = body as { status?: unknown; orderId?: unknown } | null;
  if (answer?.status !== "processing" || typeof answer.orderId !== "string") return null;
  return { kind: "payment_on_its_way", orderId: answer.orderId };
}

/** A `202 requires_action` body: where the shopper authenticates. */
export function requiredAction(body: unknown): Extract<PaymentResult, { kind: "requires_action" }> | null {
  const answer = body as {
    status?: unknown;
    orderId?: unknown;
    nextAction?: { type?: unknown; url?: unknown; clientSecret?: unknown };
  } | null;
  if (answer?.status !== "requires_action" || typeof answer.orderId !== "string") return null;
  const next = answer.nextAction;
  if (next?.type === "use_stripe_sdk" && typeof next.clientSecret === "string")
    return {
      kind: "requires_action",
      action: { type: "use_stripe_sdk", clientSecret: next.clientSecret },
      orderId: answer.orderId,
    };
  if (typeof next?.url === "string")
    return { kind: "requires_action", action: { type: "redirect", url: next.url }, orderId: answer.orderId };
  return null;
}

export function isPaidOrder(body: unknown): body is PaidOrder {
  const order = body as Partial<PaidOrder> | null;
  return typeof order?.orderId === "string" && order.status === "paid" && typeof order.amountCents === "number";
}
