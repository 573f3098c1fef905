import { RETURN_URL_REQUIRED } from "./bank-redirects";
import { attemptPayment, chargeAuthenticated } from "./charging";
import { confirmationMethodError, publishableConfirmRefusal } from "./confirmation-method";
import { usableToken } from "./confirmation-tokens";
import { createdRange } from "./created-range";
import { emit, notExecuted, type Ctx, type Outcome } from "./context";
import type { Params } from "./form";
import { unixSeconds } from "./ids";
import type { CancellationReason, PaymentIntent } from "./ledger";
import { currencyRefusal, incompatibleMethod } from "./method-currencies";
import { invalidRequest, ok, resourceMissing, type ApiResponse } from "./responses";
import {
  EMULATED_TYPES,
  invalidCreateParams,
  isIntegerText,
  mandateDataError,
  paymentMethodError,
  paymentMethodTypesError,
  returnUrlError,
  unknownParam,
} from "./validation";

// The `/v1/payment_intents` endpoints. Handlers are synchronous on purpose:
// once one starts, nothing else runs until it has finished validating and
// writing the ledger, so two confirmations of one intent cannot interleave.

// Accepted so that ordinary SDK calls are not rejected, but they do not change
// the outcome of a test card, so the emulator ignores them.
const IGNORED = ["expand", "automatic_payment_methods", "receipt_email"];
// `payment_method_types` only before API 2026-09-30 (see paymentMethodTypesError); stripe-node@23 sends `allowed_payment_method_types`.
const TYPES = ["payment_method_types", "allowed_payment_method_types"];
const CREATE_PARAMS = new Set([
  "amount",
  "currency",
  "payment_method",
  "confirmation_token",
  ...TYPES,
  "confirm",
  "confirmation_method",
  "return_url",
  "metadata",
  "description",
  "mandate_data",
  ...IGNORED,
]);
// `client_secret`: what Stripe.js sends with the publishable key.
const CONFIRM_PARAMS = new Set(["payment_method", ...TYPES, "return_url", "client_secret", ...IGNORED]);
const CANCEL_PARAMS = new Set(["cancellation_reason", "expand"]);
const CANCELLATION_REASONS: readonly string[] = ["duplicate", "fraudulent", "requested_by_customer", "abandoned"];
const CANCELABLE: readonly string[] = [
  "requires_payment_method",
  "requires_capture",
  "requires_confirmation",
  "requires_action",
  "processing",
];
const RETRIEVE_PARAMS = new Set(["client_secret", "expand"]);
const LIST_PARAMS = new Set(["limit", "starting_after", "ending_before", "created", "expand"]);

export function createIntent(ctx: Ctx, params: Params): Outcome {
  const { paymentMethods } = ctx.ledger;
  const rejected =
    unknownParam(params, CREATE_PARAMS) ??
    invalidCreateParams(params, (v) => paymentMethods.knows(v), ctx.apiVersion) ??
    confirmationMethodError(params.confirmation_method) ??
    mandateDataError(params.mandate_data);
  if (rejected) return notExecuted(rejected);
  const token = params.confirmation_token === undefined ? null : usableToken(ctx, params.confirmation_token);
  if (token && !("token" in token)) return notExecuted(token);
  // As at Stripe, what the request names wins over what the token carries.
  const named = typeof params.payment_method === "string" ? params.payment_method : token?.testToken;
  const allowed = allowedTypesOf(params.allowed_payment_method_types);
  const currency = (params.currency as string).toLowerCase();
  const legacyTypes = allowedTypesOf(params.payment_method_types);
  const wrongCurrency = legacyTypes && currencyRefusal(legacyTypes, currency);
  if (wrongCurrency) return notExecuted(wrongCurrency);
  const type = named === undefined ? null : paymentMethods.typeOf(named);
  const incompatible = incompatibleMethod(type, { currency, allowed }, EMULATED_TYPES);
  if (incompatible) return notExecuted(incompatible);
  // A SEPA debit needs the customer's mandate: from the Payment Element's token, or the create's mandate_data.
  if (
    type === "sepa_debit" &&
    params.confirm === "true" &&
    !token?.token.mandate_data &&
    params.mandate_data === undefined
  )
    return notExecuted(
      invalidRequest(
        "A SEPA Direct Debit payment needs the customer's acceptance of the mandate: send mandate_data[customer_acceptance].",
        { code: "parameter_missing", param: "mandate_data" },
      ),
    );
  // A bank redirect needs somewhere to send the shopper back: refused before the intent exists.
  if (
    (type === "ideal" || type === "bancontact") &&
    params.confirm === "true" &&
    returnUrlOf(params) === null &&
    !token?.token.return_url
  )
    return notExecuted(invalidRequest(RETURN_URL_REQUIRED, { code: "parameter_missing", param: "return_url" }));
  const paymentMethod = named === undefined ? null : paymentMethods.attach(named);
  const intent = ctx.ledger.create({
    amount: Number(params.amount),
    currency,
    paymentMethod,
    metadata: metadataOf(params.metadata),
    description: typeof params.description === "string" ? params.description : null,
    allowedTypes: allowed,
  });
  if (params.confirmation_method === "manual") intent.confirmation_method = "manual";
  if (typeof params.receipt_email === "string") intent.receipt_email = params.receipt_email;
  emit(ctx, "payment_intent.created", intent);
  // Single use: confirming consumes the token, whatever the charge then does (a used token expires no more).
  if (token) Object.assign(token.token, { payment_intent: intent.id, expires_at: null });
  if (params.confirm === "true" && paymentMethod) {
    const returnUrl = returnUrlOf(params) ?? token?.token.return_url ?? null;
    return attemptPayment(ctx, intent, paymentMethod, returnUrl, token?.token.use_stripe_sdk ?? false);
  }
  return { response: ok(structuredClone(intent)), executed: true, charge: null };
}

export function confirmIntent(ctx: Ctx, id: string, params: Params): Outcome {
  const { paymentMethods } = ctx.ledger;
  const rejected =
    unknownParam(params, CONFIRM_PARAMS) ??
    paymentMethodError(params.payment_method, (v) => paymentMethods.knows(v)) ??
    paymentMethodTypesError(params, ctx.apiVersion) ??
    returnUrlError(params.return_url);
  if (rejected) return notExecuted(rejected);
  const intent = ctx.ledger.get(id);
  if (!intent) return notExecuted(resourceMissing("payment_intent", id, "intent"));
  // Every confirm of a known intent, answered or refused: how often a server confirmed what it created.
  ctx.stats.confirms += 1;
  const refused = ctx.publishable ? publishableConfirmRefusal(intent, params.client_secret) : null;
  if (refused) return notExecuted(refused);
  if (intent.status === "succeeded") {
    return unexpectedState(
      intent,
      "You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed.",
    );
  }
  // Assumed: a late confirm must not restart an authentication the shopper is in the middle of.
  if (intent.status === "canceled" || intent.status === "requires_action") {
    return unexpectedState(
      intent,
      `You cannot confirm this PaymentIntent because it has a status of ${intent.status}.`,
    );
  }
  const named = typeof params.payment_method === "string" ? params.payment_method : null;
  const incompatible = incompatibleMethod(
    named && paymentMethods.typeOf(named),
    { currency: intent.currency, allowed: intent.allowed_payment_method_types },
    EMULATED_TYPES,
  );
  if (incompatible) return notExecuted(incompatible);
  // The payment method set at create is used; after a decline Stripe has cleared it.
  const paymentMethod = named ? paymentMethods.attach(named) : intent.payment_method;
  if (!paymentMethod) {
    return notExecuted(
      invalidRequest("You cannot confirm this PaymentIntent because it's missing a payment method.", {
        code: "payment_intent_unexpected_state",
        param: "payment_method",
      }),
    );
  }
  // Manual confirmation after the shopper's 3-D Secure: the issuer's answer, without a second challenge.
  if (paymentMethod === intent.payment_method && ctx.ledger.authentications.get(intent.id)?.completed)
    return chargeAuthenticated(ctx, intent, paymentMethod);
  return attemptPayment(ctx, intent, paymentMethod, returnUrlOf(params));
}

export function cancelIntent(ctx: Ctx, id: string, params: Params): Outcome {
  const rejected = unknownParam(params, CANCEL_PARAMS);
  if (rejected) return notExecuted(rejected);
  const reason = params.cancellation_reason;
  if (reason !== undefined && (typeof reason !== "string" || !CANCELLATION_REASONS.includes(reason))) {
    return notExecuted(
      invalidRequest(`Invalid cancellation_reason: must be one of ${CANCELLATION_REASONS.join(", ")}`, {
        param: "cancellation_reason",
      }),
    );
  }
  const intent = ctx.ledger.get(id);
  if (!intent) return notExecuted(resourceMissing("payment_intent", id, "intent"));
  // Stripe cancels a processing intent only "in rare cases"; a SEPA debit once submitted is not one of them.
  const debitProcessing =
    intent.status === "processing" &&
    intent.payment_method !== null &&
    ctx.ledger.paymentMethods.typeOf(intent.payment_method) === "sepa_debit";
  if (!CANCELABLE.includes(intent.status) || debitProcessing) {
    return unexpectedState(
      intent,
      `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(", ")}.`,
    );
  }
  Object.assign(intent, {
    status: "canceled",
    canceled_at: unixSeconds(),
    cancellation_reason: (reason as CancellationReason | undefined) ?? null,
    next_action: null,
  });
  ctx.stats.cancellations += 1;
  emit(ctx, "payment_intent.canceled", intent);
  return { response: ok(structuredClone(intent)), executed: true, charge: null };
}

export function retrieveIntent(ctx: Ctx, id: string, params: Params): ApiResponse {
  const rejected = unknownParam(params, RETRIEVE_PARAMS);
  if (rejected) return rejected;
  const intent = ctx.ledger.get(id);
  return intent ? ok(intent) : resourceMissing("payment_intent", id, "intent");
}

export function listIntents(ctx: Ctx, params: Params): ApiResponse {
  const rejected = unknownParam(params, LIST_PARAMS) ?? limitError(params.limit);
  if (rejected) return rejected;
  const created = createdRange(params.created);
  if (typeof created === "string") return invalidRequest(created, { param: "created" });
  const after = typeof params.starting_after === "string" ? params.starting_after : undefined;
  const before = typeof params.ending_before === "string" ? params.ending_before : undefined;
  const page = ctx.ledger.list(limitOf(params.limit), after, created, before);
  if (!page)
    return before !== undefined
      ? resourceMissing("payment_intent", before, "ending_before")
      : resourceMissing("payment_intent", after ?? "", "starting_after");
  return ok({ object: "list", url: "/v1/payment_intents", has_more: page.hasMore, data: page.data });
}

export function limitError(value: Params[string] | undefined): ApiResponse | null {
  if (value === undefined) return null;
  if (isIntegerText(value) && Number(value) >= 1 && Number(value) <= 100) return null;
  return invalidRequest("Invalid limit: must be an integer between 1 and 100.", { param: "limit" });
}

export function limitOf(value: Params[string] | undefined): number {
  return value === undefined ? 10 : Number(value);
}

function unexpectedState(intent: PaymentIntent, message: string): Outcome {
  return notExecuted(
    invalidRequest(message, { code: "payment_intent_unexpected_state", payment_intent: structuredClone(intent) }),
  );
}

function returnUrlOf(params: Params): string | null {
  return typeof params.return_url === "string" ? params.return_url : null;
}

function metadataOf(value: Params[string] | undefined): Record<string, string> {
  return typeof value === "object" && !Array.isArray(value) ? ({ ...value } as Record<string, string>) : {};
}

function allowedTypesOf(value: Params[string] | undefined): string[] | null {
  if (value === undefined) return null;
  return (Array.isArray(value) ? value : [value]).filter((type): type is string => typeof type === "string");
}
