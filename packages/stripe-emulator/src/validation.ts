import type { Params } from "./form";
import { formatAmount, minimumAmount, SUPPORTED_CURRENCIES } from "./money";
import { invalidRequest, type ApiResponse } from "./responses";

// Parameter checks, in the order Stripe reports them, with Stripe's codes so
// that the SDK raises the same error classes as against the real API. Each
// returns the error response, or null when the value is acceptable.

const MAX_AMOUNT = 99_999_999; // Stripe's ceiling for an eight-digit amount

/** Whether a `payment_method` value exists: a test token, or a PaymentMethod the emulator made. */
export type KnowsPaymentMethod = (value: string) => boolean;

export function invalidCreateParams(params: Params, knows: KnowsPaymentMethod, apiVersion: string): ApiResponse | null {
  if (params.amount === undefined) return missing("amount");
  if (!isIntegerText(params.amount)) {
    return invalidRequest(`Invalid integer: ${String(params.amount)}`, {
      code: "parameter_invalid_integer",
      param: "amount",
    });
  }
  const amount = Number(params.amount);
  if (amount < 1) {
    return invalidRequest("This value must be greater than or equal to 1.", {
      code: "parameter_invalid_integer",
      param: "amount",
    });
  }
  if (amount > MAX_AMOUNT) {
    return invalidRequest(`Amount must be no more than ${MAX_AMOUNT}.`, { code: "amount_too_large", param: "amount" });
  }
  if (params.currency === undefined) return missing("currency");
  if (typeof params.currency !== "string" || !/^[a-zA-Z]{3}$/.test(params.currency)) {
    return invalidRequest(`Invalid currency: ${String(params.currency)}.`, { param: "currency" });
  }
  const currency = params.currency.toLowerCase();
  const minimum = minimumAmount(currency);
  if (minimum === null) {
    return invalidRequest(
      `Invalid currency: ${currency}. Stripe currently supports these currencies: ${SUPPORTED_CURRENCIES.join(", ")}`,
      { param: "currency" },
    );
  }
  if (amount < minimum) {
    return invalidRequest(`Amount must be at least ${formatAmount(minimum, currency)} ${currency}`, {
      code: "amount_too_small",
      param: "amount",
    });
  }
  if (params.confirm !== undefined && params.confirm !== "true" && params.confirm !== "false") {
    return invalidRequest(`Invalid boolean: ${String(params.confirm)}`, { param: "confirm" });
  }
  if (params.confirm === "true" && params.payment_method === undefined && params.confirmation_token === undefined)
    return missing("payment_method");
  if (params.confirmation_token !== undefined && params.confirm !== "true") {
    return invalidRequest("confirmation_token can only be used when confirm is set to true.", {
      param: "confirmation_token",
    });
  }
  if (params.description !== undefined && typeof params.description !== "string") {
    return invalidRequest("Invalid string: description", { param: "description" });
  }
  return (
    paymentMethodError(params.payment_method, knows) ??
    paymentMethodTypesError(params, apiVersion) ??
    returnUrlError(params.return_url) ??
    returnUrlWithoutConfirm(params) ??
    metadataError(params.metadata)
  );
}

/** Only Stripe's test payment methods (and those made from them) exist here; any other id is missing, as in a Stripe account. */
export function paymentMethodError(value: Params[string] | undefined, knows: KnowsPaymentMethod): ApiResponse | null {
  if (value === undefined || (typeof value === "string" && knows(value))) return null;
  return unknownPaymentMethod(String(value));
}

/** Stripe keeps `return_url` for the confirmation that needs it: a create that does not confirm refuses it. */
function returnUrlWithoutConfirm(params: Params): ApiResponse | null {
  // (A confirmation_token without confirm is refused above.)
  if (params.return_url === undefined || params.confirm === "true") return null;
  return invalidRequest(
    "The parameter `return_url` cannot be passed when creating a PaymentIntent unless `confirm` is set to true.",
    { param: "return_url" },
  );
}

export function unknownPaymentMethod(id: string): ApiResponse {
  return invalidRequest(`No such PaymentMethod: '${id}'`, { code: "resource_missing", param: "payment_method" });
}

/** API 2026-09-30 removed `payment_method_types` from PaymentIntent create and confirm (stripe-node 23 CHANGELOG). */
export const PAYMENT_METHOD_TYPES_REMOVED = "2026-09-30";

/** The payment method types the emulator models. */
export const EMULATED_TYPES: readonly string[] = ["card", "sepa_debit", "ideal", "bancontact"];

/**
 * The emulator has the types above, which is what the app asks for, under
 * `allowed_payment_method_types`; `payment_method_types` only from a caller
 * pinned to an API version before its removal, else unknown as at Stripe.
 */
export function paymentMethodTypesError(params: Params, apiVersion: string): ApiResponse | null {
  if (params.payment_method_types !== undefined && apiVersion.slice(0, 10) >= PAYMENT_METHOD_TYPES_REMOVED)
    return unknownParamError("payment_method_types");
  for (const param of ["payment_method_types", "allowed_payment_method_types"]) {
    const value = params[param];
    if (value === undefined) continue;
    const bad = (Array.isArray(value) ? value : [value]).find(
      (type) => typeof type !== "string" || !EMULATED_TYPES.includes(type),
    );
    if (bad !== undefined) {
      return invalidRequest(
        `The payment method type provided: ${JSON.stringify(bad)} is invalid. The emulator supports ${EMULATED_TYPES.join(", ")}.`,
        { param },
      );
    }
  }
  return null;
}

export function returnUrlError(value: Params[string] | undefined): ApiResponse | null {
  if (value === undefined) return null;
  if (typeof value === "string" && /^https?:\/\/\S+$/.test(value) && URL.canParse(value)) return null;
  return invalidRequest("Invalid URL: return_url must be an absolute http(s) URL.", {
    code: "url_invalid",
    param: "return_url",
  });
}

function metadataError(value: Params[string] | undefined): ApiResponse | null {
  // `metadata=` (empty string) is how Stripe clients send "no metadata".
  if (value === undefined || value === "") return null;
  if (typeof value !== "object" || Array.isArray(value)) return invalidRequest("Invalid object", { param: "metadata" });
  const entries = Object.entries(value);
  if (entries.length > 50) return invalidRequest("Metadata can have at most 50 keys.", { param: "metadata" });
  for (const [key, item] of entries) {
    if (typeof item !== "string")
      return invalidRequest("Metadata values must be strings.", { param: `metadata[${key}]` });
    // Counted in characters (code points), not UTF-16 units.
    if ([...key].length > 40 || [...item].length > 500) {
      return invalidRequest("Metadata keys are at most 40 characters and values at most 500.", {
        param: `metadata[${key}]`,
      });
    }
  }
  return null;
}

export function unknownParam(params: Params, allowed: Set<string>): ApiResponse | null {
  const unknown = Object.keys(params).find((key) => !allowed.has(key));
  return unknown === undefined ? null : unknownParamError(unknown);
}

function unknownParamError(param: string): ApiResponse {
  return invalidRequest(`Received unknown parameter: ${param}`, { code: "parameter_unknown", param });
}

function missing(param: string): ApiResponse {
  return invalidRequest(`Missing required param: ${param}.`, { code: "parameter_missing", param });
}

export function isIntegerText(value: unknown): value is string {
  return typeof value === "string" && /^-?\d+$/.test(value);
}

/**
 * `mandate_data` on a create that confirms: the customer's acceptance, online,
 * with the address and user agent it was given from (Stripe's
 * `customer_acceptance[online]`); null when absent or well formed.
 */
export function mandateDataError(value: Params[string] | undefined): ApiResponse | null {
  if (value === undefined) return null;
  const acceptance = typeof value === "object" && !Array.isArray(value) ? value.customer_acceptance : undefined;
  const accepted = typeof acceptance === "object" && !Array.isArray(acceptance) ? acceptance : null;
  if (!accepted || accepted.type !== "online")
    return invalidRequest("mandate_data[customer_acceptance][type] must be online here.", {
      param: "mandate_data[customer_acceptance][type]",
    });
  const online = typeof accepted.online === "object" && !Array.isArray(accepted.online) ? accepted.online : null;
  for (const field of ["ip_address", "user_agent"]) {
    const given = online?.[field];
    if (typeof given !== "string" || given === "")
      return invalidRequest(`Missing required param: mandate_data[customer_acceptance][online][${field}].`, {
        code: "parameter_missing",
        param: `mandate_data[customer_acceptance][online][${field}]`,
      });
  }
  return null;
}
