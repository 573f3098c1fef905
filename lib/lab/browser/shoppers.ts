import type { CheckoutAttempt } from "@/lib/checkout-client/attempt-store";
import type { CheckoutMachine } from "@/lib/checkout-client/checkout-machine";
import type { CheckoutState } from "@/lib/checkout-client/checkout-state";
import type { CheckoutBody } from "@/lib/checkout-client/types";

/**
 * One press of Pay in each lane, sent as that lane's page would send it.
 * What the shopper ends up looking at is returned; what happened on the
 * server is read from its event log, never from here.
 */
export type ShopperView =
  | { kind: "paid"; orderId: string }
  | { kind: "declined" }
  | { kind: "error"; detail: string }
  | { kind: "unknown"; detail: string };

/**
 * The idempotent lane: the shop's own CheckoutMachine — the same mutation,
 * backoff policy, Idempotency-Key and "ask the shop" fallback as /checkout —
 * with this press's fetch.
 */
export async function idempotentPress(
  machine: CheckoutMachine,
  attempt: CheckoutAttempt,
  send: typeof fetch,
): Promise<ShopperView> {
  return viewOf(await machine.send(attempt, { byPress: true, fetch: send }));
}

/**
 * The naive lane: a typical first checkout page. One POST per press, no key,
 * no retries; any failure shows "Something went wrong, try again".
 */
export async function naivePress(body: CheckoutBody, send: typeof fetch): Promise<ShopperView> {
  try {
    const response = await send("/api/lab/naive-checkout", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    // An answer cut off mid-body is no answer: like a page doing `await response.json()`.
    const answer = (await response.json().catch((err: unknown) => (response.ok ? Promise.reject(err) : null))) as {
      orderId?: unknown;
    } | null;
    if (response.status === 201 && typeof answer?.orderId === "string")
      return { kind: "paid", orderId: answer.orderId };
    if (response.status === 402) return { kind: "declined" };
    return { kind: "error", detail: `HTTP ${response.status}` };
  } catch {
    return { kind: "error", detail: "the connection was lost" };
  }
}

function viewOf(state: CheckoutState): ShopperView {
  switch (state.kind) {
    case "paid":
      return { kind: "paid", orderId: state.order.orderId };
    case "declined":
      return { kind: "declined" };
    case "rejected":
      return { kind: "error", detail: state.message };
    default:
      return { kind: "unknown", detail: "still processing; the shop will settle it" };
  }
}
