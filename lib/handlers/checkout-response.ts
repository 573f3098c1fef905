import type { CheckoutResult } from "@/lib/checkout/checkout";
import type { AdmissionRule } from "@/lib/abuse/admission";
import { INVALID_CHECKOUT } from "@/lib/checkout/request";
import { invalidRequest, jsonError, rateLimited } from "@/lib/http";
import { conflictResponse, storedResponse } from "@checkout/idempotency/next";

/** What a duplicate is told, whether the database answers it or this process does (it runs the attempt). */
export const CONFLICT_MESSAGES = {
  inProgress: "This checkout attempt is still being processed. Ask again shortly with the same key.",
  mismatch: "This Idempotency-Key was already used with a different request. Use a new key for a new checkout attempt.",
};

/** Every answer about a checkout attempt, in one place: the use case's result mapped to HTTP one-to-one. */
export function toResponse(result: CheckoutResult): Response {
  switch (result.kind) {
    case "response":
      // The stored bytes, as first sent: a replay is byte-identical.
      return storedResponse(result.response, result.replayed);
    case "invalid":
      return invalidRequest(INVALID_CHECKOUT, result.issues);
    case "in_progress":
      return conflictResponse(result, undefined, CONFLICT_MESSAGES.inProgress);
    case "mismatch":
      return conflictResponse(result, undefined, CONFLICT_MESSAGES.mismatch);
    case "refused":
      return refusal(result.rule, result.retryAfterSeconds);
    case "not_found":
      return jsonError(404, "not_found", "No checkout with this id for this customer.");
    case "checkout_has_payment":
      return jsonError(
        409,
        "checkout_has_payment",
        "This checkout already has a payment; follow it by its key instead of paying again.",
        { status: result.payment.status, key: result.payment.key, orderId: result.payment.orderId },
      );
    case "unavailable":
      return unavailable(
        "payment_unavailable",
        "The payment provider did not answer in time. Retrying with the same key is safe.",
        result.retryAfterSeconds,
      );
  }
}

export function unavailable(error: string, message: string, retryAfterSeconds: number): Response {
  return jsonError(503, error, message, { retryAfterSeconds }, { "Retry-After": String(retryAfterSeconds) });
}

/** A fresh key refused before anything was stored: retrying with the same key later is safe. */
function refusal(rule: AdmissionRule, retryAfterSeconds: number): Response {
  const headers = { "Retry-After": String(retryAfterSeconds) };
  switch (rule) {
    case "open_attempts":
      return rateLimited(
        retryAfterSeconds,
        "Too many payments are still open for this session; finish one first. Retrying with the same key is safe.",
      );
    case "too_many_declines":
      return jsonError(
        429,
        "too_many_declines",
        "Too many declined payments; try again later or use another way to pay.",
        { retryAfterSeconds },
        headers,
      );
    case "provider_busy":
      return unavailable(
        "payment_unavailable",
        "The payment provider is busy. Retrying with the same key is safe.",
        retryAfterSeconds,
      );
    default:
      return rateLimited(retryAfterSeconds, "Too many new payments; retrying with the same key is safe.");
  }
}
