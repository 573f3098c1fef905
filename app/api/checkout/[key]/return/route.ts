import { z } from "zod";
import { returnFromAuthentication } from "@/lib/checkout/authentication-return";
import {
  forbiddenOrigin,
  isForeignOrigin,
  isUuid,
  jsonError,
  rateLimited,
  readValidJson,
  requestAddress,
  unauthenticated,
} from "@/lib/http";
import { observeError } from "@/lib/observability";
import { abuseLimits, checkoutDeps, checkoutGate } from "@/lib/services";
import { currentCustomerId } from "@/lib/session";
import { toResponse, unavailable } from "@/lib/handlers/checkout-response";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "@/lib/checkout/checkout";

const returnSchema = z.strictObject({
  paymentIntent: z
    .string()
    .regex(/^pi_\w{1,200}$/)
    .nullable(),
});

/**
 * POST /api/checkout/{key}/return — the return page reports the shopper back
 * from 3-D Secure; the answer is the attempt's outcome, as `POST /api/checkout`
 * would give it. `paymentIntent` is what the provider put in the return URL:
 * a claim to check against the record, never the truth.
 */
export async function POST(request: Request, ctx: { params: Promise<{ key: string }> }) {
  if (isForeignOrigin(request)) return forbiddenOrigin();
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();
  const { key } = await ctx.params;
  const notFound = () =>
    jsonError(404, "not_found", "No checkout attempt with this key and payment for this customer.");
  if (!isUuid(key)) return notFound();
  const body = await readValidJson(request, returnSchema, "The return request is not valid.");
  if (!body.ok) return body.response;
  try {
    // Each return costs a provider call: limited per address and session. A return is of a key the
    // customer already has, so a limiter that cannot count lets it through (an alarm, logged).
    const admitted = await abuseLimits().consume(
      [
        ["return_per_address", requestAddress(request)],
        ["return_per_session", customerId],
      ],
      { failOpen: true },
    );
    if (!admitted.ok) return rateLimited(admitted.retryAfterSeconds, "Too many returns; reloading shortly is safe.");
    // A return that resumes its attempt calls Stripe: it takes a unit of the shoppers' budget, as a retake does.
    const budget = checkoutGate().admission(customerId, requestAddress(request));
    const result = await returnFromAuthentication(checkoutDeps(), {
      customerId,
      key: key.toLowerCase(),
      paymentIntentId: body.value.paymentIntent,
      address: requestAddress(request),
      retake: budget.retake,
    });
    // Answered without asking Stripe (a replay, another owner at work, refused): the unit goes back.
    if (result.kind !== "response" || result.replayed) budget.giveBack();
    return result.kind === "not_found" ? notFound() : toResponse(result);
  } catch (err) {
    observeError("checkout_return_error", err, { key, customerId });
    return unavailable(
      "unavailable",
      "The shop cannot check this payment right now. Reloading is safe.",
      UNAVAILABLE_RETRY_AFTER_SECONDS,
    );
  }
}
