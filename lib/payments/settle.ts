import type Stripe from "stripe";

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
  | { kind: "declined"; paymentIntentId: string | null; declineCode: string; message: string }
  | { kind: "unknown"; paymentIntentId: string | null; reason: string };

export interface PaymentRequest {
  /** Our record's id: the root of every downstream idempotency key. */
  recordId: string;
  /** Which owner of the record this is; confirm keys differ per owner (see below). */
  attempt: number;
  amountCents: number;
  currency: string;
  paymentMethod: string;
  /** Set when an earlier owner already created the PaymentIntent. */
  paymentIntentId: string | null;
  metadata: Record<string, string>;
}

export async function settlePayment(
  stripe: Stripe,
  request: PaymentRequest,
  recordPaymentIntent: (id: string) => Promise<void>,
): Promise<PaymentOutcome> {
  let paymentIntentId = request.paymentIntentId;
  try {
    let intent: Stripe.PaymentIntent & Partial<Pick<Stripe.Response<Stripe.PaymentIntent>, "lastResponse">> = paymentIntentId
      ? await stripe.paymentIntents.retrieve(paymentIntentId)
      : await stripe.paymentIntents.create(
          {
            amount: request.amountCents,
            currency: request.currency,
            payment_method: request.paymentMethod,
            // Cards only, no redirects: the whole payment happens server-side.
            automatic_payment_methods: { enabled: true, allow_redirects: "never" },
            metadata: request.metadata,
          },
          { idempotencyKey: `${request.recordId}:create` },
        );
    if (!paymentIntentId) {
      paymentIntentId = intent.id;
      await recordPaymentIntent(intent.id);
      // A replayed create is the intent as it was when first created; an
      // earlier owner may have confirmed it since. Ask for its state now.
      if (intent.lastResponse?.headers["idempotent-replayed"] === "true") {
        intent = await stripe.paymentIntents.retrieve(intent.id);
      }
    }
    if (intent.status === "requires_confirmation" || (intent.status === "requires_payment_method" && !intent.last_payment_error)) {
      intent = await confirm(stripe, intent.id, request);
    }
    return outcomeOf(intent);
  } catch (err) {
    if (isStripeError(err, "StripeCardError")) {
      return {
        kind: "declined",
        paymentIntentId: paymentIntentId ?? err.payment_intent?.id ?? null,
        declineCode: err.decline_code ?? err.code ?? "card_declined",
        message: err.message,
      };
    }
    // Timeouts, dropped connections, 5xx, 429, 409 key-in-use, or an answer we
    // cannot interpret: the charge may or may not have happened. Never guess;
    // the next attempt asks Stripe about the PaymentIntent itself.
    return { kind: "unknown", paymentIntentId, reason: describe(err) };
  }
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
      { payment_method: request.paymentMethod },
      { idempotencyKey: `${request.recordId}:confirm:${request.attempt}` },
    );
  } catch (err) {
    if (isStripeError(err, "StripeInvalidRequestError") && err.code === "payment_intent_unexpected_state") {
      return stripe.paymentIntents.retrieve(id);
    }
    throw err;
  }
}

function outcomeOf(intent: Stripe.PaymentIntent): PaymentOutcome {
  if (intent.status === "succeeded") return { kind: "succeeded", paymentIntentId: intent.id };
  const error = intent.last_payment_error;
  if (intent.status === "requires_payment_method" && error) {
    return {
      kind: "declined",
      paymentIntentId: intent.id,
      declineCode: error.decline_code ?? error.code ?? "card_declined",
      message: error.message ?? "Your card was declined.",
    };
  }
  return { kind: "unknown", paymentIntentId: intent.id, reason: `PaymentIntent is ${intent.status}` };
}

function describe(err: unknown): string {
  if (isStripeError(err)) return `${err.type} ${err.statusCode ?? ""} ${err.message}`.trim();
  return err instanceof Error ? err.message : String(err);
}

/**
 * Stripe's errors told apart by their `type`, never by `instanceof`: Next.js
 * bundles the SDK into each server bundle, so the client the maintenance timer
 * built (instrumentation bundle) throws errors whose classes are not the ones
 * a route's bundle imports. Every StripeError carries its class name as `type`.
 */
interface StripeErrorTypes {
  StripeError: Stripe.errors.StripeError;
  StripeCardError: Stripe.errors.StripeCardError;
  StripeInvalidRequestError: Stripe.errors.StripeInvalidRequestError;
}

function isStripeError<K extends keyof StripeErrorTypes = "StripeError">(err: unknown, type?: K): err is StripeErrorTypes[K] {
  if (typeof err !== "object" || err === null) return false;
  const actual = (err as { type?: unknown }).type;
  return typeof actual === "string" && actual.startsWith("Stripe") && (type === undefined || actual === type);
}
