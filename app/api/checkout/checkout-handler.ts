import { checkout, UNAVAILABLE_RETRY_AFTER_SECONDS, type CheckoutResult } from "@/lib/checkout/checkout";
import { CHECKOUT_ENDPOINT, checkoutRequestSchema, INVALID_CHECKOUT } from "@/lib/checkout/request";
import { forbiddenOrigin, invalidRequest, isForeignOrigin, isUuid, jsonError, readValidJson, unauthenticated } from "@/lib/http";
import { observe, observeError, traceRequest } from "@/lib/observability";
import { checkoutDeps } from "@/lib/services";
import { currentCustomerId } from "@/lib/session";

/**
 * POST /api/checkout — docs/contract.md §2. Parse, call the use case, map its
 * result to HTTP. Shared by the route and the lab's lossy route
 * (/api/lab/lose-response), so no route imports another.
 */
export async function handleCheckout(request: Request): Promise<Response> {
  // A tracer may record the request (the lab does, for requests its page tagged).
  const response = await traceRequest(request, CHECKOUT_ENDPOINT, () => handle(request));
  observe("response", { status: response.status });
  return response;
}

async function handle(request: Request): Promise<Response> {
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();

  const key = request.headers.get("idempotency-key");
  if (key === null || key.trim() === "") {
    return jsonError(400, "idempotency_key_missing", "Send an Idempotency-Key header (a UUID) with every checkout attempt.");
  }
  if (!isUuid(key.trim())) return jsonError(400, "idempotency_key_invalid", "The Idempotency-Key header must be a UUID.");

  const body = await readValidJson(request, checkoutRequestSchema, INVALID_CHECKOUT);
  if (!body.ok) return body.response;

  try {
    const result = await checkout(checkoutDeps(), { customerId, key: key.trim().toLowerCase(), body: body.value });
    return toResponse(result);
  } catch (err) {
    observeError("checkout_error", err, { key, customerId });
    return jsonError(503, "unavailable", "The shop cannot take payments right now. Retrying with the same key is safe.",
      { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS }, { "Retry-After": String(UNAVAILABLE_RETRY_AFTER_SECONDS) });
  }
}

function toResponse(result: CheckoutResult): Response {
  switch (result.kind) {
    case "response": {
      const headers = new Headers(result.response.headers);
      if (result.replayed) headers.set("Idempotent-Replayed", "true");
      return Response.json(result.response.body, { status: result.response.statusCode, headers });
    }
    case "invalid":
      return invalidRequest(INVALID_CHECKOUT, result.issues);
    case "in_progress":
      return jsonError(409, "in_progress", "This checkout attempt is still being processed. Ask again shortly with the same key.",
        { retryAfterSeconds: result.retryAfterSeconds }, { "Retry-After": String(result.retryAfterSeconds) });
    case "mismatch":
      return jsonError(422, "idempotency_key_reuse",
        "This Idempotency-Key was already used with a different request. Use a new key for a new checkout attempt.");
    case "unavailable":
      return jsonError(503, "payment_unavailable", "The payment provider did not answer in time. Retrying with the same key is safe.",
        { retryAfterSeconds: result.retryAfterSeconds }, { "Retry-After": String(result.retryAfterSeconds) });
  }
}
