import { ApiError } from "./api";
import { CheckoutFailure } from "./checkout-failure";
import { declinedFrom, isPaidOrder, type PaymentResult } from "./payment-client";
import type { AttemptStatus, PaidOrder } from "./types";

/** What the checkout page shows: one state at a time, each with its way forward. */
export type CheckoutState =
  | { kind: "idle" }
  /** A request is out or a retry is waiting; `retry` 0 is the first request. */
  | { kind: "paying"; retry: number }
  /** Retries ran out: asking the shop what became of the attempt. */
  | { kind: "checking" }
  | { kind: "paid"; order: PaidOrder }
  | { kind: "declined"; declineCode: string; message: string }
  /** The shop is still working on it after a minute: "Check again" continues the same attempt. */
  | { kind: "processing" }
  /** Neither the payment nor the check got through: the outcome is unknown. */
  | { kind: "unreachable" }
  /** The shop never received the attempt, so nothing was charged; Pay sends it again. */
  | { kind: "not_recorded" }
  /** The shop refused the request (400/401/403/422): the attempt is closed, the next press starts afresh. */
  | { kind: "rejected"; code: string; message: string };

export function stateFromResult(result: PaymentResult): CheckoutState {
  return result.kind === "paid" ? { kind: "paid", order: result.order } : result;
}

/** The truth from GET /api/checkout/{key}. */
export function stateFromStatus(status: AttemptStatus): CheckoutState {
  if (status.status === "in_progress" || !status.response) return { kind: "processing" };
  const { statusCode, body } = status.response;
  if (statusCode === 201 && isPaidOrder(body)) return { kind: "paid", order: body };
  if (statusCode === 402) return stateFromResult(declinedFrom(body));
  return { kind: "rejected", code: "unexpected_response", message: `The shop recorded HTTP ${statusCode} for this payment.` };
}

export function stateFromCheckFailure(error: unknown): CheckoutState {
  return error instanceof ApiError && error.status === 404 ? { kind: "not_recorded" } : { kind: "unreachable" };
}

const REFUSALS: Record<number, string> = {
  400: "The shop could not accept this cart. Check it and press Pay to try again.",
  401: "Your session ended before the payment went through. Press Pay to start again.",
  403: "This page is not allowed to pay from here. Reload the shop and try again.",
  413: "This cart is too large to pay for at once. Remove some items and try again.",
  422: "This payment attempt no longer matches your cart, so it was not charged again. Press Pay to start a new payment.",
};

/** A refusal the shopper can act on, or null when only the shop knows what happened. */
export function refusalFrom(error: unknown): CheckoutState | null {
  if (!(error instanceof CheckoutFailure) || error.reason.kind !== "http") return null;
  const message = REFUSALS[error.reason.status];
  return message ? { kind: "rejected", code: error.reason.code, message } : null;
}

/**
 * Where a payment stands once the mutation has failed for good: a refusal
 * the shopper can act on, or else (retries ran out, or an answer made no
 * sense) whatever the shop recorded for this attempt's key. Never a guess,
 * and never a new attempt.
 */
export async function outcomeAfterFailure(error: unknown, askShop: () => Promise<AttemptStatus>): Promise<CheckoutState> {
  const refusal = refusalFrom(error);
  if (refusal) return refusal;
  try {
    return stateFromStatus(await askShop());
  } catch (err) {
    return stateFromCheckFailure(err);
  }
}

/** After these the attempt is over: its key is never sent again. */
export function isDefinitive(state: CheckoutState): boolean {
  return state.kind === "paid" || state.kind === "declined" || state.kind === "rejected";
}

/** While the shop may be charging the attempt's cart, that cart cannot be edited into a different purchase. */
export function locksCart(state: CheckoutState): boolean {
  return state.kind === "paying" || state.kind === "checking" || state.kind === "processing" || state.kind === "unreachable";
}

const DECLINE_REASONS: Record<string, string> = {
  generic_decline: "Your bank declined the payment.",
  insufficient_funds: "The card has insufficient funds.",
  lost_card: "The card was reported lost.",
  fraudulent: "The bank suspected fraud.",
};

export function declineReason(declineCode: string, fallback: string): string {
  return DECLINE_REASONS[declineCode] ?? fallback;
}
