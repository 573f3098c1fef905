import type Stripe from "stripe";
import { findAttemptIntent, paymentKeys, type AttemptMetadata } from "./attempt-intent";
import { EXPAND_CARD, outcomeOf, outcomeOfError, type PaymentOutcome } from "./outcome";
import { isStripeError } from "./stripe-errors";

/**
 * Drives one payment to an outcome, any number of times, charging at most
 * once (docs/decisions/0008-one-call-under-attempt-keys.md). A fresh attempt
 * costs one provider call: the PaymentIntent is created and confirmed
 * together, under a key derived from the attempt, so repeating the call after
 * a lost answer — by a retry, a retake, or after the shop lost its own rows —
 * sends Stripe the very same request and gets the first answer back. Where
 * the key cannot tell (a stored 500, a key still in use, parameters that
 * changed), the attempt's intent is looked up by its metadata and adopted.
 * An attempt whose intent is already known asks Stripe for its state first.
 */
export interface PaymentRequest {
  /** The attempt's derived id (its order's id): the root of every downstream key. */
  attemptId: string;
  /** Which owner of the attempt this is: confirm keys differ per owner. */
  attempt: number;
  amountCents: number;
  currency: string;
  /** What the shopper pays with: a PaymentMethod (`pm_…`) or a ConfirmationToken Stripe.js made (`ctoken_…`). */
  paymentMethod: string;
  /** Set when an earlier owner learned the attempt's PaymentIntent. */
  paymentIntentId: string | null;
  metadata: AttemptMetadata;
  /** Where Stripe sends the shopper back after 3-D Secure. */
  returnUrl: string;
  /** Where Stripe emails the receipt; null for none. Stored with the order, so every owner sends the same. */
  receiptEmail?: string | null;
  /** The types Stripe may charge (the shop's PAYMENT_METHOD_TYPES). */
  allowedTypes?: readonly string[];
  /** The customer's acceptance of a SEPA mandate, sent with the create; null for other methods. */
  mandate?: MandateAcceptance | null;
  /** When the attempt's order was written: its intent is looked for among those created since. */
  since: Date;
  /** Whether an intent found by its metadata is the attempt's own (never adopt another's). */
  accepts: (intent: Stripe.PaymentIntent) => boolean;
}

/** Accepted online, from this address and user agent (Stripe's `mandate_data.customer_acceptance.online`). */
export interface MandateAcceptance {
  ipAddress: string;
  userAgent: string;
}

/** Renews the owner's lock before a provider call that could change anything; false once fenced out. */
export interface Fence {
  refresh(): Promise<boolean>;
}

type Intent = Stripe.PaymentIntent & Partial<Pick<Stripe.Response<Stripe.PaymentIntent>, "lastResponse">>;

export async function drivePayment(stripe: Stripe, request: PaymentRequest, fence: Fence): Promise<PaymentOutcome> {
  const outcome = await drive(stripe, request, fence);
  // The intent outlived its first answer (3-D Secure, an unknown outcome): its failure closes it for good.
  if (request.paymentIntentId && isDefinitiveFailure(outcome))
    await cancelFailed(stripe, request.attemptId, outcome.paymentIntentId);
  return outcome;
}

async function drive(stripe: Stripe, request: PaymentRequest, fence: Fence): Promise<PaymentOutcome> {
  let paymentIntentId = request.paymentIntentId;
  let stage: "write" | "read" = "read";
  try {
    let intent: Intent;
    if (paymentIntentId) {
      intent = await stripe.paymentIntents.retrieve(paymentIntentId, EXPAND_CARD);
    } else {
      // The caller renewed the lock just before: this one call needs no renewal of its own.
      stage = "write";
      const created = await createAndConfirm(stripe, request);
      stage = "read";
      if (!created.intent) return { kind: "unknown", paymentIntentId: null, reason: created.reason };
      intent = created.intent;
      // A replay is the intent as it was first answered; the shopper may have authenticated since.
      if (isReplay(intent) && intent.status !== "succeeded" && intent.status !== "canceled")
        intent = await stripe.paymentIntents.retrieve(intent.id, EXPAND_CARD);
    }
    paymentIntentId = intent.id;
    if (needsConfirmation(intent)) {
      if (!(await fence.refresh())) return { kind: "fenced" };
      stage = "write";
      intent = await confirm(
        stripe,
        intent.id,
        paymentKeys(request.attemptId).confirm(request.attempt),
        request.returnUrl,
      );
    }
    return outcomeOf(intent);
  } catch (err) {
    return outcomeOfError(err, paymentIntentId, stage);
  }
}

/** The create's answer, or the intent found by metadata when the key could not tell (`reason` says why). */
type Created = { intent: Intent | null; reason: string };

/**
 * The one call of a fresh attempt. Stripe answers an idempotency error when
 * the key cannot replay: the first request with it is still running (409
 * `idempotency_key_in_use`), or it came with other parameters (400: the
 * catalogue's price changed after the shop lost the attempt's order). A
 * stored `500` replays for ever. In each case the attempt's intent, if it
 * exists, is found by its metadata and adopted; none found is unknown.
 */
async function createAndConfirm(stripe: Stripe, request: PaymentRequest): Promise<Created> {
  try {
    const intent = await stripe.paymentIntents.create(
      {
        amount: request.amountCents,
        currency: request.currency,
        // The payment method is fixed here, once: a later confirm never sends
        // it again, so it can never charge an intent that was declined. A
        // ConfirmationToken is single-use, and a repeat of this call under the
        // attempt's key is Stripe's replay, never a second use.
        ...(isConfirmationToken(request.paymentMethod)
          ? { confirmation_token: request.paymentMethod }
          : { payment_method: request.paymentMethod }),
        confirm: true,
        // Only the shop's secret key confirms it: a client secret handed to the shopper for
        // 3-D Secure cannot confirm it with the publishable key, and the shop confirms after the bank.
        confirmation_method: "manual",
        // With a return_url, 3-D Secure is a redirect (never `use_stripe_sdk`,
        // which needs Stripe.js). The shop's enabled types; API 2026-10-28
        // (stripe-node 23) names this `allowed_payment_method_types`.
        return_url: request.returnUrl,
        allowed_payment_method_types: [...(request.allowedTypes ?? ["card"])],
        ...(request.mandate
          ? {
              mandate_data: {
                customer_acceptance: {
                  type: "online",
                  online: { ip_address: request.mandate.ipAddress, user_agent: request.mandate.userAgent },
                },
              },
            }
          : {}),
        metadata: request.metadata,
        ...(request.receiptEmail ? { receipt_email: request.receiptEmail } : {}),
        ...EXPAND_CARD,
      },
      { idempotencyKey: paymentKeys(request.attemptId).create },
    );
    return { intent, reason: "created" };
  } catch (err) {
    if (!keyCannotTell(err)) throw err;
    // Only a read from here: whatever the search answers, nothing was decided by it.
    const intent = await findAttemptIntent(stripe, request.attemptId, request.since, request.accepts).catch(() => null);
    return { intent, reason: describeKeyError(err) };
  }
}

/**
 * stripe-node 23 classifies by status: a 400 `idempotency_error` is a
 * StripeIdempotencyError, but a 409 `idempotency_key_in_use` a StripeAPIError.
 */
function keyCannotTell(err: unknown): err is Stripe.errors.StripeError {
  if (!isStripeError(err)) return false;
  if (err.type === "StripeIdempotencyError") return true;
  return err.type === "StripeAPIError" && (err.statusCode === 500 || err.code === "idempotency_key_in_use");
}

function describeKeyError(err: Stripe.errors.StripeError): string {
  return `${err.type} ${err.statusCode ?? ""} ${err.code ?? ""}: the attempt's intent is not found yet`.replace(
    / +/g,
    " ",
  );
}

/**
 * The shop's confirm of its own intent: after the shopper's 3-D Secure (manual
 * confirmation), or of one never confirmed. An intent some other owner
 * confirmed meanwhile answers "unexpected state": its current status is then the outcome.
 */
export async function confirm(
  stripe: Stripe,
  id: string,
  idempotencyKey: string,
  returnUrl: string,
): Promise<Stripe.PaymentIntent> {
  try {
    return await stripe.paymentIntents.confirm(id, { return_url: returnUrl, ...EXPAND_CARD }, { idempotencyKey });
  } catch (err) {
    if (isStripeError(err, "StripeInvalidRequestError") && err.code === "payment_intent_unexpected_state") {
      return stripe.paymentIntents.retrieve(id, EXPAND_CARD);
    }
    throw err;
  }
}

/**
 * Cancels a failed intent under the attempt's cancel key, with the parameters
 * the reconciler sends under it (settle-for-good.ts). Not fenced: it cannot
 * charge anything. A cancel that fails changes nothing the failure decided;
 * the intent then stays as Stripe left it, which only the secret key can confirm.
 */
async function cancelFailed(stripe: Stripe, attemptId: string, paymentIntentId: string | null): Promise<void> {
  if (!paymentIntentId) return;
  await stripe.paymentIntents
    .cancel(paymentIntentId, { cancellation_reason: "abandoned" }, { idempotencyKey: paymentKeys(attemptId).cancel })
    .catch(() => undefined);
}

function isDefinitiveFailure(
  outcome: PaymentOutcome,
): outcome is Extract<PaymentOutcome, { kind: "declined" | "failed" }> {
  return outcome.kind === "declined" || (outcome.kind === "failed" && outcome.code !== "canceled");
}

/**
 * Waiting for the shop's confirm: after the shopper's 3-D Secure (manual
 * confirmation), or created but never confirmed (an earlier version of the
 * shop, or a create Stripe executed only in part).
 */
function needsConfirmation(intent: Stripe.PaymentIntent): boolean {
  return (
    intent.status === "requires_confirmation" ||
    (intent.status === "requires_payment_method" && !intent.last_payment_error)
  );
}

export function isConfirmationToken(credential: string): boolean {
  return credential.startsWith("ctoken_");
}

function isReplay(intent: Intent): boolean {
  return intent.lastResponse?.headers["idempotent-replayed"] === "true";
}
