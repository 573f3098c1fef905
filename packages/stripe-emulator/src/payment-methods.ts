import type { Ctx } from "./context";
import type { Params } from "./form";
import { ok, resourceMissing, type ApiResponse } from "./responses";
import { unknownParam } from "./validation";

/**
 * `GET /v1/payment_methods/{id}` (secret key): a PaymentMethod made here,
 * with its card's brand, last four digits and fingerprint. A test payment
 * method (`pm_card_visa`) is answered as a PaymentMethod made from it.
 */
export function retrievePaymentMethod(ctx: Ctx, id: string, params: Params): ApiResponse {
  const rejected = unknownParam(params, new Set(["expand"]));
  if (rejected) return rejected;
  const made = ctx.ledger.paymentMethods.attach(id);
  return made ? ok(ctx.ledger.paymentMethods.object(made)) : resourceMissing("payment_method", id, "payment_method");
}
