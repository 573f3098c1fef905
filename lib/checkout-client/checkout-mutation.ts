import { mutationOptions } from "@tanstack/react-query";
import type { CheckoutAttempt } from "./attempt-store";
import { CheckoutFailure } from "./checkout-failure";
import { postCheckout } from "./payment-client";
import { sessionQuery } from "./queries";
import { checkoutRetryOptions } from "./retry-options";

/**
 * The checkout mutation: one POST per try, retried by TanStack Query under
 * the one backoff policy. Separate from the hook so the retry wiring can be
 * tested against the real QueryClient without a browser.
 */
export function checkoutMutation(deps: {
  /** When the shopper pressed Pay (or the page resumed): the retry budget counts from here. */
  startedAt: () => number;
  now?: () => number;
  random?: () => number;
  fetch?: typeof fetch;
}) {
  const now = deps.now ?? Date.now;
  return mutationOptions({
    mutationKey: ["checkout"],
    mutationFn: async (attempt: CheckoutAttempt, { client }) => {
      // Nothing was sent yet, so failing to start the session is as safe to retry as a lost connection.
      const session = await client
        .ensureQueryData(sessionQuery)
        .catch((err: unknown) => Promise.reject(CheckoutFailure.network(err)));
      // The key is scoped to the customer it was begun for: under a new session
      // (the old one expired, or a reload started another) it would be a second payment.
      if (attempt.customerId !== undefined && attempt.customerId !== session.customerId)
        throw CheckoutFailure.sessionChanged();
      return postCheckout(attempt, { fetch: deps.fetch });
    },
    ...checkoutRetryOptions(() => now() - deps.startedAt(), deps.random),
  });
}
