import { CHECKOUT_ENDPOINT, checkoutBody, INVALID_CHECKOUT, type CheckoutRequest } from "@/lib/checkout/request";
import { readIdempotentRequest, type RequestOptions } from "@checkout/idempotency/next";
import { forbiddenOrigin, invalidRequest, isForeignOrigin, readJsonBody, unauthenticated } from "@/lib/http";
import { observe, traceRequest } from "@/lib/observability";
import { inSpan } from "@/lib/tracing/spans";
import { checkoutDeps } from "@/lib/services";
import { currentCustomerId } from "@/lib/session";
import { payAttempt } from "./checkout-attempt";
import { CONFLICT_MESSAGES } from "./checkout-response";

/**
 * POST /api/checkout (docs/contract.md §2): origin, then session, key and
 * body through the idempotency package's adapter, which answers a duplicate
 * of an attempt this process runs at once; then the attempt. Here rather
 * than in the route's folder because the lab's lossy route
 * (/api/lab/lose-response) serves it too, and no route imports another.
 */
export function handleCheckout(request: Request): Promise<Response> {
  const attributes = { "http.route": new URL(request.url).pathname, "http.request.method": request.method };
  // A tracer may record the request (the lab does, for requests its page tagged).
  return inSpan("checkout", attributes, async (span) => {
    const response = await traceRequest(request, CHECKOUT_ENDPOINT, () => handle(request));
    span.setAttribute("http.response.status_code", response.status);
    observe("response", { status: response.status });
    return response;
  });
}

async function handle(request: Request): Promise<Response> {
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const read = await readIdempotentRequest(request, CHECKOUT_REQUEST);
  if (read.ok) return payAttempt(request, read.subject, read.scope.key, read.body);
  const { decision, scope } = read.inFlight ?? {};
  // Answered without the claim's statement, and observed as the use case observes a claim.
  if (decision && scope) observe("claim", { decision, key: scope.key, customerId: scope.subjectId });
  return read.response;
}

const CHECKOUT_REQUEST: RequestOptions<CheckoutRequest> = {
  engine: () => checkoutDeps().idempotency,
  endpoint: CHECKOUT_ENDPOINT,
  subject: currentCustomerId,
  unauthenticated,
  key: { missingMessage: "Send an Idempotency-Key header (a UUID) with every checkout attempt." },
  readJson: (request) => readJsonBody(request),
  parse(json) {
    const body = checkoutBody(json, checkoutDeps().paymentMethodTypes);
    return body.ok ? body : { ok: false, response: invalidRequest(INVALID_CHECKOUT, body.issues) };
  },
  messages: CONFLICT_MESSAGES,
};
