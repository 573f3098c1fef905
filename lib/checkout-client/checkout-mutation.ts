import { idempotentMutation, type PollOptions } from "@checkout/idempotency/client";
import type { CheckoutAttempt } from "./attempt-store";
import { CheckoutFailure, sessionChanged } from "./checkout-failure";
import { CHECKOUT_URL, paymentResultOf } from "./payment-client";
import { sessionQuery } from "./queries";

/**
 * The checkout mutation: the package's idempotent mutation on POST
 * /api/checkout, each try made under the session the attempt was begun in.
 * `poll` carries what a caller varies: its fetch, when the attempt began (the
 * retry budget counts from there), the jitter, a signal, and `onRetry`.
 */
export function checkoutMutation(poll: Omit<PollOptions, "beforeEachTry"> = {}) {
  return idempotentMutation<ReturnType<typeof paymentResultOf>, CheckoutAttempt>({
    mutationKey: ["checkout"],
    url: CHECKOUT_URL,
    parse: paymentResultOf,
    beforeEachTry: async (attempt, { client }) => {
      // Nothing was sent yet, so failing to start the session is as safe to retry as a lost connection.
      const session = await client
        .ensureQueryData(sessionQuery)
        .catch((err: unknown) => Promise.reject(CheckoutFailure.network(err)));
      // The key is scoped to the customer it was begun for: under a new session
      // (the old one expired, or a reload started another) it would be a second payment.
      if (attempt.subject !== undefined && attempt.subject !== session.customerId) throw sessionChanged();
    },
    poll,
  });
}
