/**
 * What a handler answers, before it is written to a socket. Keeping responses
 * as plain values lets the idempotency store keep and replay them verbatim.
 */
export interface ApiResponse {
  status: number;
  body: unknown;
}

export interface StripeErrorFields {
  type: "invalid_request_error" | "api_error" | "card_error" | "idempotency_error";
  message: string;
  code?: string;
  param?: string;
  [extra: string]: unknown;
}

export function stripeError(status: number, error: StripeErrorFields): ApiResponse {
  return { status, body: { error } };
}

export function ok(body: unknown): ApiResponse {
  return { status: 200, body };
}

export function invalidRequest(message: string, extra: Omit<Partial<StripeErrorFields>, "type"> = {}): ApiResponse {
  return stripeError(400, { type: "invalid_request_error", message, ...extra });
}

export function resourceMissing(kind: string, id: string, param: string): ApiResponse {
  return stripeError(404, {
    type: "invalid_request_error",
    code: "resource_missing",
    param,
    message: `No such ${kind}: '${id}'`,
  });
}

export function unrecognizedUrl(method: string, path: string): ApiResponse {
  return stripeError(404, {
    type: "invalid_request_error",
    message: `Unrecognized request URL (${method}: ${path}). This emulator serves only /v1/payment_intents and /_emulator/*.`,
  });
}

export function idempotencyMismatch(key: string): ApiResponse {
  return stripeError(400, {
    type: "idempotency_error",
    message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
  });
}

export function keyInUse(key: string): ApiResponse {
  return stripeError(409, {
    type: "idempotency_error",
    code: "idempotency_key_in_use",
    message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
  });
}
