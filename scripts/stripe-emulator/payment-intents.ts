import { declineFor } from "./cards";
import type { Params } from "./form";
import { randomId } from "./ids";
import type { Ledger, PaymentError, PaymentIntent } from "./ledger";
import { invalidRequest, ok, resourceMissing, stripeError, type ApiResponse } from "./responses";
import { invalidCreateParams, isIntegerText, paymentMethodError, unknownParam } from "./validation";

// The `/v1/payment_intents` endpoints. Handlers are synchronous on purpose:
// once one starts, nothing else runs until it has finished validating and
// writing the ledger, so two confirmations of one intent cannot interleave.

export interface Outcome {
  response: ApiResponse;
  /** The request got past validation and acted: Stripe keeps such results for idempotent replay. */
  executed: boolean;
  /** A charge was attempted by this request, and how it went. */
  charge: "succeeded" | "declined" | null;
}

// Accepted so that ordinary SDK calls are not rejected, but they do not change
// the outcome of a test card, so the emulator ignores them.
const IGNORED = ["expand", "automatic_payment_methods", "payment_method_types", "allowed_payment_method_types", "return_url", "receipt_email"];
const CREATE_PARAMS = new Set(["amount", "currency", "payment_method", "confirm", "metadata", "description", ...IGNORED]);
const CONFIRM_PARAMS = new Set(["payment_method", ...IGNORED]);
const RETRIEVE_PARAMS = new Set(["client_secret", "expand"]);
const LIST_PARAMS = new Set(["limit", "starting_after", "expand"]);

export function createIntent(ledger: Ledger, params: Params): Outcome {
  const rejected = unknownParam(params, CREATE_PARAMS) ?? invalidCreateParams(params);
  if (rejected) return notExecuted(rejected);
  const amount = Number(params.amount);
  const paymentMethod = typeof params.payment_method === "string" ? params.payment_method : null;
  const intent = ledger.create({
    amount,
    currency: (params.currency as string).toLowerCase(),
    paymentMethod,
    metadata: metadataOf(params.metadata),
    description: typeof params.description === "string" ? params.description : null,
  });
  if (params.confirm === "true" && paymentMethod) return attemptCharge(intent, paymentMethod);
  return { response: ok(structuredClone(intent)), executed: true, charge: null };
}

export function confirmIntent(ledger: Ledger, id: string, params: Params): Outcome {
  const rejected = unknownParam(params, CONFIRM_PARAMS) ?? paymentMethodError(params.payment_method);
  if (rejected) return notExecuted(rejected);
  const intent = ledger.get(id);
  if (!intent) return notExecuted(resourceMissing("payment_intent", id, "intent"));
  if (intent.status === "succeeded") {
    return notExecuted(
      invalidRequest("You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed.", {
        code: "payment_intent_unexpected_state",
        payment_intent: structuredClone(intent),
      }),
    );
  }
  const paymentMethod = typeof params.payment_method === "string" ? params.payment_method : intent.payment_method;
  if (!paymentMethod) {
    return notExecuted(
      invalidRequest("You cannot confirm this PaymentIntent because it's missing a payment method.", {
        code: "payment_intent_unexpected_state",
        param: "payment_method",
      }),
    );
  }
  return attemptCharge(intent, paymentMethod);
}

export function retrieveIntent(ledger: Ledger, id: string, params: Params): ApiResponse {
  const rejected = unknownParam(params, RETRIEVE_PARAMS);
  if (rejected) return rejected;
  const intent = ledger.get(id);
  return intent ? ok(intent) : resourceMissing("payment_intent", id, "intent");
}

export function listIntents(ledger: Ledger, params: Params): ApiResponse {
  const rejected = unknownParam(params, LIST_PARAMS);
  if (rejected) return rejected;
  const limit = params.limit === undefined ? 10 : Number(params.limit);
  if (typeof params.limit !== "undefined" && (!isIntegerText(params.limit) || limit < 1 || limit > 100)) {
    return invalidRequest("Invalid limit: must be an integer between 1 and 100.", { param: "limit" });
  }
  const after = typeof params.starting_after === "string" ? params.starting_after : undefined;
  const page = ledger.list(limit, after);
  if (!page) return resourceMissing("payment_intent", after ?? "", "starting_after");
  return ok({ object: "list", url: "/v1/payment_intents", has_more: page.hasMore, data: page.data });
}

/** Charges the card and records the result on the intent, success or decline: the ledger keeps both. */
function attemptCharge(intent: PaymentIntent, paymentMethod: string): Outcome {
  const chargeId = randomId("ch_");
  intent.latest_charge = chargeId;
  const decline = declineFor(paymentMethod);
  if (!decline) {
    Object.assign(intent, { status: "succeeded", payment_method: paymentMethod, amount_received: intent.amount, last_payment_error: null });
    return { response: ok(structuredClone(intent)), executed: true, charge: "succeeded" };
  }
  const error: PaymentError = {
    type: "card_error",
    code: decline.code,
    decline_code: decline.declineCode,
    message: decline.message,
    charge: chargeId,
    doc_url: "https://stripe.com/docs/error-codes/card-declined",
    payment_method: { id: paymentMethod, object: "payment_method", type: "card" },
  };
  // As at Stripe, a declined intent drops its payment method and waits for a new one.
  Object.assign(intent, { status: "requires_payment_method", payment_method: null, last_payment_error: error });
  const response = stripeError(402, { ...error, payment_intent: structuredClone(intent) });
  return { response, executed: true, charge: "declined" };
}

function metadataOf(value: Params[string] | undefined): Record<string, string> {
  return typeof value === "object" && !Array.isArray(value) ? ({ ...value } as Record<string, string>) : {};
}

function notExecuted(response: ApiResponse): Outcome {
  return { response, executed: false, charge: null };
}
