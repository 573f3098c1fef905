import type { CheckoutAttempt } from "./attempt-store";
import { CheckoutFailure, parseRetryAfter } from "./checkout-failure";
import type { PaidOrder } from "./types";

/**
 * One POST /api/checkout for an attempt, always with the attempt's key and
 * byte-identical body. No retries here: they are policy, set once on the
 * mutation (see use-checkout.ts).
 */
export type PaymentResult =
  | { kind: "paid"; order: PaidOrder }
  /** Nothing was charged: `error` is `card_declined`, `authentication_failed`, `authentication_abandoned` or `payment_failed`. */
  | { kind: "declined"; error: string; declineCode: string; message: string }
  /**
   * 3-D Secure: the shopper confirms the payment with their bank, at `url`
   * (a redirect) or in this page through Stripe.js with the client secret;
   * the attempt stays open.
   */
  | { kind: "requires_action"; action: NextAction; orderId: string };

export type NextAction = { type: "redirect"; url: string } | { type: "use_stripe_sdk"; clientSecret: string };

/**
 * A request gives up after this and is retried with the same key, which the
 * server answers with 409 in milliseconds while the first request is still
 * charging. So a slow payment shows up as retries (a visibly alive page)
 * instead of one connection held open for as long as the provider takes.
 */
export const REQUEST_TIMEOUT_MS = 5_000;

export async function postCheckout(
  attempt: CheckoutAttempt,
  options: { fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<PaymentResult> {
  const send = options.fetch ?? fetch;
  let response: Response;
  let body: unknown;
  try {
    response = await send("/api/checkout", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": attempt.key },
      body: attempt.bodyJson,
      credentials: "same-origin",
      signal: AbortSignal.timeout(options.timeoutMs ?? REQUEST_TIMEOUT_MS),
    });
    // Reading the body is part of the exchange: a connection cut mid-body is a lost response too.
    body = await response.json().catch((err: unknown) => (response.ok ? Promise.reject(err) : null));
  } catch (err) {
    throw CheckoutFailure.network(err);
  }
  return resultOf(response, body);
}

export function resultOf(response: { status: number; headers: Headers }, body: unknown): PaymentResult {
  if (response.status === 201 && isPaidOrder(body)) return { kind: "paid", order: body };
  if (response.status === 402) return declinedFrom(body);
  const action = requiredAction(body);
  if (response.status === 202 && action) return action;
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
