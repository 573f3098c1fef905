import type { Admission } from "../abuse/admission";
import { knownAttempt } from "./attempt";
import { IN_PROGRESS_RETRY_AFTER_SECONDS } from "@checkout/idempotency";
import { resumeAttempt, type CheckoutDeps, type CheckoutResult } from "./checkout";
import { findAttemptOrder } from "./orders";

/**
 * The shopper is back from 3-D Secure (docs/contract.md, "3-D Secure"). The
 * query string the provider appended is never trusted: the attempt is looked
 * up by key for this customer, its own recorded PaymentIntent is asked for
 * its state, and the outcome is recorded through the same fenced path as a
 * retry. A second return finds the attempt finished and changes nothing.
 */
export type AuthenticationReturn = CheckoutResult | { kind: "not_found" };

export async function returnFromAuthentication(
  deps: CheckoutDeps,
  input: {
    customerId: string;
    key: string;
    paymentIntentId: string | null;
    address?: string;
    /** Whether the shoppers' provider budget has a unit for the calls a resume makes (lib/abuse/checkout-gate.ts). */
    retake?: Admission["retake"];
  },
): Promise<AuthenticationReturn> {
  const state = await deps.idempotency.find(knownAttempt(input.customerId, input.key).scope);
  if (!state) return { kind: "not_found" };
  const order = await findAttemptOrder(deps.prisma, state.recordId);
  // Only the intent recorded for this key and customer: another one's id in the query is not ours to settle.
  if (!order?.paymentIntentId) return { kind: "not_found" };
  if (input.paymentIntentId !== null && input.paymentIntentId !== order.paymentIntentId) return { kind: "not_found" };
  if (state.status !== "in_progress" && state.response)
    return { kind: "response", response: state.response, replayed: true };

  // Resuming asks Stripe (a retrieve, perhaps a confirm): only with a unit of the shoppers' budget.
  if (input.retake !== undefined && input.retake !== true)
    return { kind: "refused", rule: input.retake.blockedBy, retryAfterSeconds: input.retake.retryAfterSeconds };
  const resumed = await resumeAttempt<never>(
    deps,
    { recordId: state.recordId, order },
    { customerId: input.customerId, key: input.key, address: input.address },
    async () => ({ settle: { ...order, paymentMethod: order.paymentMethod ?? "" } }),
  );
  // A live owner (a webhook, the reconciler, another tab) is settling it right now.
  if (resumed.kind !== "settled") return { kind: "in_progress", retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
  return resumed.settled.result;
}
