import { knownAttempt } from "@/lib/checkout/attempt";
import { admitCheckout } from "@/lib/abuse/admission";
import { attemptKnown, checkout, UNAVAILABLE_RETRY_AFTER_SECONDS } from "@/lib/checkout/checkout";
import { CHECKOUT_ENDPOINT, checkoutRequestSchema, INVALID_CHECKOUT, paymentCredential } from "@/lib/checkout/request";
import { readKey } from "@checkout/idempotency/next";
import {
  invalidRequest,
  forbiddenOrigin,
  isForeignOrigin,
  publicOrigin,
  readValidJson,
  requestAddress,
  unauthenticated,
} from "@/lib/http";
import { observe, observeError, traceRequest } from "@/lib/observability";
import { inSpan } from "@/lib/tracing/spans";
import { namesUnknownToken } from "@/lib/payments/key-pair";
import { verifyKeyPair } from "@/lib/payments/stripe";
import { cardCheck, checkoutDeps, checkoutGate } from "@/lib/services";
import { currentCustomerId } from "@/lib/session";
import { toResponse, unavailable } from "./checkout-response";

/**
 * POST /api/checkout (docs/contract.md §2). Parse, call the use case, map its
 * result to HTTP. Here rather than in the route's folder because the lab's
 * lossy route (/api/lab/lose-response) serves it too, and no route imports
 * another.
 */
export async function handleCheckout(request: Request): Promise<Response> {
  // A tracer may record the request (the lab does, for requests its page tagged).
  return inSpan(
    "checkout",
    { "http.route": new URL(request.url).pathname, "http.request.method": request.method },
    async (span) => {
      const response = await traceRequest(request, CHECKOUT_ENDPOINT, () => handle(request));
      span.setAttribute("http.response.status_code", response.status);
      observe("response", { status: response.status });
      return response;
    },
  );
}

async function handle(request: Request): Promise<Response> {
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();

  const read = readKey(request, {
    missingMessage: "Send an Idempotency-Key header (a UUID) with every checkout attempt.",
  });
  if (!read.ok) return read.response;
  const key = read.key!;

  const body = await readValidJson(request, checkoutRequestSchema, INVALID_CHECKOUT);
  if (!body.ok) return body.response;
  const type = body.value.paymentMethodType ?? "card";
  // Refused before any claim or provider call: nothing is stored, and the same key may be sent again.
  if (!(checkoutDeps().paymentMethodTypes ?? ["card"]).includes(type))
    return invalidRequest(INVALID_CHECKOUT, [
      { path: ["paymentMethodType"], message: `${type} is not a payment method this shop takes` },
    ]);

  try {
    // A fresh key costs provider calls: the claim admits it against the limits, or refuses it with nothing stored.
    const address = requestAddress(request);
    const ticket = await admitCheckout(checkoutGate(), cardCheck(), {
      customerId,
      address,
      credential: paymentCredential(body.value),
      known: () => attemptKnown(checkoutDeps(), knownAttempt(customerId, key)),
    });
    const result = await checkout(checkoutDeps(), {
      customerId,
      key,
      body: body.value,
      origin: publicOrigin(request),
      userAgent: request.headers.get("user-agent") ?? undefined,
      admission: ticket.admission,
      noProviderCall: ticket.giveBack,
      address,
    });
    ticket.answered(result);
    if (result.kind === "refused")
      observe("rate_limited", { rule: result.rule, retryAfterSeconds: result.retryAfterSeconds });
    // A token Stripe does not know may be a publishable key of another account: find out before answering
    // (the answer is stored already; at most one probe a minute, bounded by its timeouts).
    if (
      result.kind === "response" &&
      !result.replayed &&
      namesUnknownToken(result.response.statusCode, result.response.body)
    )
      await verifyKeyPair().catch(() => "unknown");
    return toResponse(result);
  } catch (err) {
    observeError("checkout_error", err, { key, customerId });
    return unavailable(
      "unavailable",
      "The shop cannot take payments right now. Retrying with the same key is safe.",
      UNAVAILABLE_RETRY_AFTER_SECONDS,
    );
  }
}
