import type Stripe from "stripe";
import { isStripeError } from "./stripe-errors";

/**
 * Drives one payment to an outcome, any number of times, charging at most
 * once. The PaymentIntent is the unit of at-most-once: it is created under a
 * downstream idempotency key derived from our record (so every retake gets
 * the same PaymentIntent back), its id is recorded before it is confirmed, and
 * a retake asks Stripe for its status before doing anything. A PaymentIntent
 * can succeed only once, so confirming it again can never charge twice.
 */
export type PaymentOutcome =
  | { kind: "succeeded"; paymentIntentId: string }
  /** The bank said no: `402 card_declined`. */
  | { kind: "declined"; paymentIntentId: string | null; declineCode: string; message: string }
  /** Nothing was charged and nothing will be: `402` with `error`. */
  | { kind: "failed"; paymentIntentId: string | null; error: FailureError; code: string; message: string }
  /** The shopper must authenticate (3-D Secure) at `url`; the attempt waits for them. */
  | { kind: "requires_action"; paymentIntentId: string; url: string }
  | { kind: "unknown"; paymentIntentId: string | null; reason: string }
  /** The owner lost its claim before a provider call: it must not go on. */
  | { kind: "fenced" };

export type FailureError = "payment_failed" | "authentication_failed" | "authentication_abandoned";

export interface PaymentRequest {
  /** Our record's id: the root of every downstream idempotency key. */
  recordId: string;
  /** Which owner of the record this is; confirm keys differ per owner (see `confirm`). */
  attempt: number;
  amountCents: number;
  currency: string;
  paymentMethod: string;
  /** Set when an earlier owner already created the PaymentIntent. */
  paymentIntentId: string | null;
  /** Carries `orderId`, by which `final` finds an intent whose id was never recorded. */
  metadata: { orderId: string } & Record<string, string>;
  /** Where Stripe sends the shopper back after 3-D Secure. */
  returnUrl: string;
  /**
   * Settle for good (past the attempt's deadline, or an authentication nobody
   * finished): never create or confirm; cancel whatever has not succeeded.
   */
  final: boolean;
}

/** Writes the owner makes between provider calls; each also renews its lock, and answers false once fenced out. */
export interface OwnerWrites {
  recordPaymentIntent(id: string): Promise<boolean>;
  refresh(): Promise<boolean>;
}

type Intent = Stripe.PaymentIntent & Partial<Pick<Stripe.Response<Stripe.PaymentIntent>, "lastResponse">>;

export async function settlePayment(
  stripe: Stripe,
  request: PaymentRequest,
  owner: OwnerWrites,
): Promise<PaymentOutcome> {
  let paymentIntentId = request.paymentIntentId;
  let stage: "create" | "confirm" | "read" = "read";
  try {
    let intent: Intent | null;
    // The caller renewed the lock just before: one provider call may follow before the next renewal.
    let lockFresh = true;
    if (paymentIntentId) {
      intent = await stripe.paymentIntents.retrieve(paymentIntentId);
      lockFresh = false;
    } else if (request.final) {
      intent = await findByOrder(stripe, request.metadata.orderId);
      if (!intent) return attemptExpired(null);
      lockFresh = false;
    } else {
      stage = "create";
      intent = await create(stripe, request);
      stage = "read";
      if (!(await owner.recordPaymentIntent(intent.id))) return { kind: "fenced" };
      // A replayed create is the intent as it was when first created; an
      // earlier owner may have confirmed it since. Ask for its state now.
      if (intent.lastResponse?.headers["idempotent-replayed"] === "true") {
        intent = await stripe.paymentIntents.retrieve(intent.id);
        lockFresh = false;
      }
    }
    paymentIntentId = intent.id;
    if (request.final && paymentIntentId !== request.paymentIntentId && !(await owner.recordPaymentIntent(intent.id))) {
      return { kind: "fenced" };
    }
    if (request.final) return await settleForGood(stripe, request, intent);
    if (needsConfirmation(intent)) {
      if (!lockFresh && !(await owner.refresh())) return { kind: "fenced" };
      stage = "confirm";
      intent = await confirm(stripe, intent.id, request);
    }
    return outcomeOf(intent);
  } catch (err) {
    return outcomeOfError(err, paymentIntentId, stage);
  }
}

function create(stripe: Stripe, request: PaymentRequest): Promise<Intent> {
  return stripe.paymentIntents.create(
    {
      amount: request.amountCents,
      currency: request.currency,
      // The payment method is fixed here, once: confirm never sends it again,
      // so a late confirm can never charge an intent that was declined.
      payment_method: request.paymentMethod,
      // Cards only: with a return_url at confirm, 3-D Secure is a redirect
      // (never `use_stripe_sdk`, which needs Stripe.js). API 2026-10-28
      // (stripe-node 23) names this `allowed_payment_method_types`; it
      // replaced `payment_method_types` on PaymentIntent create and confirm.
      allowed_payment_method_types: ["card"],
      metadata: request.metadata,
    },
    { idempotencyKey: `${request.recordId}:create` },
  );
}

/**
 * A fresh confirm key per owner: Stripe replays a stored 500 forever for one
 * key, and the intent's own state already prevents a second charge. An intent
 * some other owner confirmed meanwhile answers "unexpected state": its current
 * status is then the outcome.
 */
async function confirm(stripe: Stripe, id: string, request: PaymentRequest): Promise<Stripe.PaymentIntent> {
  try {
    return await stripe.paymentIntents.confirm(
      id,
      { return_url: request.returnUrl },
      { idempotencyKey: `${request.recordId}:confirm:${request.attempt}` },
    );
  } catch (err) {
    if (isStripeError(err, "StripeInvalidRequestError") && err.code === "payment_intent_unexpected_state") {
      return stripe.paymentIntents.retrieve(id);
    }
    throw err;
  }
}

function needsConfirmation(intent: Stripe.PaymentIntent): boolean {
  return (
    intent.status === "requires_confirmation" ||
    (intent.status === "requires_payment_method" && !intent.last_payment_error)
  );
}

/** The attempt's intent when its id was never recorded (the create's answer was lost). */
async function findByOrder(stripe: Stripe, orderId: string): Promise<Stripe.PaymentIntent | null> {
  // Search is eventually consistent (about a minute at Stripe); the deadline is far longer.
  const found = await stripe.paymentIntents.search({
    query: `metadata['orderId']:'${orderId.replace(/'/g, "")}'`,
    limit: 10,
  });
  return found.data.find((i) => i.status === "succeeded") ?? found.data[0] ?? null;
}

/** Past the deadline: a success stands; anything else is cancelled and recorded as a failure. */
async function settleForGood(
  stripe: Stripe,
  request: PaymentRequest,
  intent: Stripe.PaymentIntent,
): Promise<PaymentOutcome> {
  if (intent.status === "succeeded" || intent.status === "canceled") return outcomeOf(intent);
  let canceled: Stripe.PaymentIntent;
  try {
    canceled = await stripe.paymentIntents.cancel(
      intent.id,
      { cancellation_reason: "abandoned" },
      { idempotencyKey: `${request.recordId}:cancel` },
    );
  } catch (err) {
    // It moved on meanwhile (succeeded, or cannot be cancelled while processing): its state decides.
    if (!(isStripeError(err, "StripeInvalidRequestError") && err.code === "payment_intent_unexpected_state")) throw err;
    canceled = await stripe.paymentIntents.retrieve(intent.id);
    if (canceled.status !== "canceled") return outcomeOf(canceled);
  }
  if (intent.status === "requires_action") {
    return failed(
      intent.id,
      "authentication_abandoned",
      "abandoned",
      "The card's authentication was never completed; nothing was charged.",
    );
  }
  const before = outcomeOf(intent);
  return before.kind === "declined" || before.kind === "failed" ? before : attemptExpired(canceled.id);
}

/** Past the deadline with nothing that succeeded: a stored failure, nothing charged. */
export function attemptExpired(paymentIntentId: string | null): Extract<PaymentOutcome, { kind: "failed" }> {
  return failed(
    paymentIntentId,
    "payment_failed",
    "attempt_expired",
    "This payment attempt expired before it could be completed; nothing was charged.",
  );
}

function failed(
  paymentIntentId: string | null,
  error: FailureError,
  code: string,
  message: string,
): Extract<PaymentOutcome, { kind: "failed" }> {
  return { kind: "failed", paymentIntentId, error, code, message };
}

function outcomeOf(intent: Stripe.PaymentIntent): PaymentOutcome {
  if (intent.status === "succeeded") return { kind: "succeeded", paymentIntentId: intent.id };
  const redirect = intent.next_action?.redirect_to_url?.url;
  if (intent.status === "requires_action" && redirect)
    return { kind: "requires_action", paymentIntentId: intent.id, url: redirect };
  if (intent.status === "canceled") {
    return failed(intent.id, "payment_failed", "canceled", "This payment was cancelled; nothing was charged.");
  }
  const error = intent.last_payment_error;
  if (intent.status === "requires_payment_method" && error) {
    if (error.code === "payment_intent_authentication_failure") {
      return failed(
        intent.id,
        "authentication_failed",
        error.code,
        error.message ?? "The card's authentication failed.",
      );
    }
    if (error.type === "card_error") {
      return {
        kind: "declined",
        paymentIntentId: intent.id,
        declineCode: error.decline_code ?? error.code ?? "card_declined",
        message: error.message ?? "Your card was declined.",
      };
    }
    return failed(intent.id, "payment_failed", error.code ?? "payment_failed", error.message ?? "The payment failed.");
  }
  return { kind: "unknown", paymentIntentId: intent.id, reason: `PaymentIntent is ${intent.status}` };
}

/**
 * A card error is a decline; an invalid request about the payment itself
 * (unknown or unusable payment method, amount rules) at create or confirm
 * means nothing was charged: a failure to record, not to retry forever.
 * Timeouts, dropped connections, 5xx, 429, 409 key-in-use, and any error
 * while only reading: the charge may or may not have happened. Never guess;
 * the next attempt asks Stripe about the PaymentIntent itself.
 */
function outcomeOfError(
  err: unknown,
  paymentIntentId: string | null,
  stage: "create" | "confirm" | "read",
): PaymentOutcome {
  if (isStripeError(err, "StripeCardError")) {
    return {
      kind: "declined",
      paymentIntentId: paymentIntentId ?? err.payment_intent?.id ?? null,
      declineCode: err.decline_code ?? err.code ?? "card_declined",
      message: err.message,
    };
  }
  if (stage !== "read" && isStripeError(err, "StripeInvalidRequestError") && err.statusCode === 400) {
    return failed(paymentIntentId, "payment_failed", err.code ?? "invalid_request", err.message);
  }
  return { kind: "unknown", paymentIntentId, reason: describe(err) };
}

function describe(err: unknown): string {
  if (isStripeError(err)) return `${err.type} ${err.statusCode ?? ""} ${err.message}`.trim();
  return err instanceof Error ? err.message : String(err);
}
