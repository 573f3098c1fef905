import { idempotentMutation, type IdempotentRequest, type PollOptions } from "@checkout/idempotency/client";
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
    poll: { waitForChange: waitForStatusChange, ...poll },
  });
}

/** How long one status read may wait on the shop (GET /api/checkout/{key}?wait=, at most 4 s there). */
export const STATUS_WAIT_MS = 4_000;

/**
 * After a 409, waits on the status endpoint for the attempt to stop running:
 * true (send again at once) when it did, or when the shop waited the whole
 * time; false (back off) when the read failed or came back at once unchanged,
 * as a shop that does not wait would answer, so nothing polls in a tight loop.
 */
export async function waitForStatusChange(request: IdempotentRequest): Promise<boolean> {
  const startedAt = performance.now();
  const response = await fetch(`${CHECKOUT_URL}/${encodeURIComponent(request.key)}?wait=${STATUS_WAIT_MS}`, {
    credentials: "same-origin",
    cache: "no-store",
    signal: AbortSignal.timeout(STATUS_WAIT_MS + 5_000),
  });
  if (!response.ok) return false;
  const state = (await response.json()) as { status?: unknown; response?: unknown };
  if (state.status !== "in_progress") return true;
  return state.response === undefined && performance.now() - startedAt >= STATUS_WAIT_MS / 2;
}
