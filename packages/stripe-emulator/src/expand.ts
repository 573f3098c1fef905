import type { Params } from "./form";
import type { PaymentMethods } from "./ledger";
import type { ApiResponse } from "./responses";

/**
 * Stripe's `expand`, for the one path the shop asks of a PaymentIntent:
 * `payment_method`, answered as the PaymentMethod object in place of its id
 * (`expand[]=payment_method` on a create, confirm or retrieve). The stored
 * intent keeps the id; only this answer carries the object, as at Stripe,
 * where an idempotent replay returns the answer as first expanded. Other
 * paths are left as ids.
 */
export function expanded(response: ApiResponse, params: Params, paymentMethods: PaymentMethods): ApiResponse {
  const paths = Array.isArray(params.expand) ? params.expand : [];
  if (!paths.includes("payment_method")) return response;
  const body = response.body as { object?: unknown; payment_method?: unknown } | null;
  if (body?.object !== "payment_intent" || typeof body.payment_method !== "string") return response;
  return { ...response, body: { ...body, payment_method: paymentMethods.object(body.payment_method) } };
}
