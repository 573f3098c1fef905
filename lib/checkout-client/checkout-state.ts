import { ApiError } from "./api";
import { CheckoutFailure } from "./checkout-failure";
import { declinedFrom, isPaidOrder, paymentOnItsWay, requiredAction, type PaymentResult } from "./payment-client";
import type { AttemptStatus, PaidOrder } from "./types";

/** What the checkout page shows: one state at a time, each with its way forward. */
export type CheckoutState =
  | { kind: "idle" }
  /** A request is out or a retry is waiting; `retry` 0 is the first request. */
  | { kind: "paying"; retry: number }
  /** Retries ran out: asking the shop what became of the attempt. */
  | { kind: "checking" }
  | { kind: "paid"; order: PaidOrder }
  /** Stripe accepted the payment and decides later (a SEPA debit): the order page follows it; never pay again. */
  | { kind: "payment_on_its_way"; orderId: string }
  /** Nothing was charged (`error`: card_declined, authentication_failed, authentication_abandoned, payment_failed). */
  | { kind: "declined"; error: string; declineCode: string; message: string }
  /**
   * 3-D Secure: the payment waits for the shopper at their bank, at `url`, or
   * (null) in the window Stripe.js opened on this page; the attempt stays open.
   */
  | { kind: "authenticating"; url: string | null }
  /** The bank's window on this page closed before the shopper answered it; the bank still waits. */
  | { kind: "authentication_pending" }
  /** The shop is still working on it after a minute: "Check again" continues the same attempt. */
  | { kind: "processing" }
  /** Neither the payment nor the check got through: the outcome is unknown. */
  | { kind: "unreachable" }
  /** The shop never received the attempt, so nothing was charged; Pay sends it again. */
  | { kind: "not_recorded" }
  /**
   * The shop does not know the attempt, but it may once have: the attempt is
   * older than the shop's memory, or was made under a session that has since
   * ended. It may have been charged, so the shopper checks their orders; the
   * attempt is closed and only a press of Pay starts a new one, with a new key.
   */
  | { kind: "no_record" }
  /**
   * The session ended (401) or changed in the middle of an attempt. The
   * attempt stays open and is not sent again under another session (that
   * would be a second payment); "Check again" only asks the shop about it.
   */
  | { kind: "session_lost" }
  /** The shop refused the request (400/403/413/422): the attempt is closed, the next press starts afresh. */
  | { kind: "rejected"; code: string; message: string };

export function stateFromResult(result: PaymentResult): CheckoutState {
  if (result.kind === "paid") return { kind: "paid", order: result.order };
  // The client secret stays with the result: the state is shown, the secret never is.
  if (result.kind === "requires_action")
    return { kind: "authenticating", url: result.action.type === "redirect" ? result.action.url : null };
  // Another attempt pays this checkout: on its way until that attempt is read (CheckoutMachine follows it).
  if (result.kind === "has_payment") return { kind: "processing" };
  return result;
}

/** The truth from GET /api/checkout/{key}. */
export function stateFromStatus(status: AttemptStatus): CheckoutState {
  const action = status.response?.statusCode === 202 ? requiredAction(status.response.body) : null;
  // Asked, not answered to a press: no challenge is open on this page, so the shopper opens it again.
  if (action?.action.type === "use_stripe_sdk") return { kind: "authentication_pending" };
  if (action) return stateFromResult(action);
  if (status.status === "in_progress" || !status.response) return { kind: "processing" };
  const { statusCode, body } = status.response;
  if (statusCode === 201 && isPaidOrder(body)) return { kind: "paid", order: body };
  const onItsWay = statusCode === 202 ? paymentOnItsWay(body) : null;
  if (onItsWay) return onItsWay;
  if (statusCode === 402) return stateFromResult(declinedFrom(body));
  return {
    kind: "rejected",
    code: "unexpected_response",
    message: `The shop recorded HTTP ${statusCode} for this payment.`,
  };
}

/**
 * What a failed GET /api/checkout/{key} means. A 404 is "never received" only
 * while the shop would still remember the attempt under this session; for an
 * old attempt, or after a lost session, the shop may simply have forgotten it.
 */
export function stateFromCheckFailure(error: unknown, options: { mayBeForgotten?: boolean } = {}): CheckoutState {
  if (error instanceof ApiError && error.status === 404)
    return options.mayBeForgotten ? { kind: "no_record" } : { kind: "not_recorded" };
  if (error instanceof ApiError && error.status === 401) return { kind: "session_lost" };
  return { kind: "unreachable" };
}

const REFUSALS: Record<number, string> = {
  400: "The shop could not accept this cart. Check it and press Pay to try again.",
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
 * A 401 in the middle of an attempt is not a refusal of the payment: an
 * earlier try may have charged the card under the session that just ended.
 * Nor can the shop be asked about it now (the key belongs to that session).
 */
export function sessionLostFrom(error: unknown): CheckoutState | null {
  if (!(error instanceof CheckoutFailure)) return null;
  return error.reason.kind === "not_sent" || error.status === 401 ? { kind: "session_lost" } : null;
}

/** The state a failure leads to without asking the shop, if any. */
export function immediateOutcome(error: unknown): CheckoutState | null {
  return refusalFrom(error) ?? sessionLostFrom(error);
}

/**
 * Where a payment stands once the mutation has failed for good: a refusal
 * the shopper can act on, or else (retries ran out, or an answer made no
 * sense) whatever the shop recorded for this attempt's key. Never a guess,
 * and never a new attempt.
 */
export async function outcomeAfterFailure(
  error: unknown,
  askShop: () => Promise<AttemptStatus>,
  options: { mayBeForgotten?: boolean } = {},
): Promise<CheckoutState> {
  const immediate = immediateOutcome(error);
  if (immediate) return immediate;
  try {
    return stateFromStatus(await askShop());
  } catch (err) {
    return stateFromCheckFailure(err, options);
  }
}

/** After these the attempt is over: its key is never sent again. */
export function isDefinitive(state: CheckoutState): boolean {
  return (
    state.kind === "paid" ||
    state.kind === "payment_on_its_way" ||
    state.kind === "declined" ||
    state.kind === "rejected" ||
    state.kind === "no_record"
  );
}

/** While the shop may be charging the attempt's cart, that cart cannot be edited into a different purchase. */
export function locksCart(state: CheckoutState): boolean {
  return (
    state.kind === "paying" ||
    state.kind === "checking" ||
    state.kind === "processing" ||
    state.kind === "unreachable" ||
    state.kind === "session_lost"
  );
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
