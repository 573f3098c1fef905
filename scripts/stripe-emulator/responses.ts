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
