import { knownAttempt } from "@/lib/checkout/attempt";
import { admitCheckout } from "@/lib/abuse/admission";
import { attemptKnown, checkout, UNAVAILABLE_RETRY_AFTER_SECONDS } from "@/lib/checkout/checkout";
import { paymentCredential, type CheckoutRequest } from "@/lib/checkout/request";
import { publicOrigin, requestAddress } from "@/lib/http";
import { observe, observeError } from "@/lib/observability";
import { namesUnknownToken } from "@/lib/payments/key-pair";
import { verifyKeyPair } from "@/lib/payments/stripe";
import { cardCheck, checkoutDeps, checkoutGate } from "@/lib/services";
import { toResponse, unavailable } from "./checkout-response";

/**
 * A checked checkout request's attempt: admitted against the limits (a
 * fresh key costs provider calls; a refusal stores nothing), run by the use
 * case, its result as HTTP.
 */
export async function payAttempt(
  request: Request,
  customerId: string,
  key: string,
  body: CheckoutRequest,
): Promise<Response> {
  try {
    const address = requestAddress(request);
    const ticket = await admitCheckout(checkoutGate(), cardCheck(), {
      customerId,
      address,
      credential: paymentCredential(body),
      known: () => attemptKnown(checkoutDeps(), knownAttempt(customerId, key)),
    });
    const result = await checkout(checkoutDeps(), {
      customerId,
      key,
      body,
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
