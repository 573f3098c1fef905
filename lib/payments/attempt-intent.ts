import type Stripe from "stripe";

/**
 * What ties a PaymentIntent to the checkout attempt that made it: the
 * attempt's id (its order's id, derived from the customer, the endpoint and
 * the client's key), which roots every downstream idempotency key and is
 * written into the intent's metadata.
 */
export interface AttemptMetadata extends Record<string, string> {
  orderId: string;
  customerId: string;
  idempotencyKey: string;
}

/** The downstream idempotency keys of one attempt: the same for every owner, retry and instance. */
export function paymentKeys(attemptId: string) {
  return {
    create: `${attemptId}:create`,
    /** Per owner: Stripe replays a stored 500 forever for one key, and the intent's state already prevents a second charge. */
    confirm: (owner: number) => `${attemptId}:confirm:${owner}`,
    cancel: `${attemptId}:cancel`,
  };
}

/**
 * The attempt's intent, found by its metadata when its id is not known: the
 * create's answer was lost, replayed as a stored 500, or refused because the
 * parameters changed since. Search is eventually consistent (about a minute
 * at Stripe): an intent not found yet is looked for again, with backoff.
 */
export async function findAttemptIntent(stripe: Stripe, attemptId: string): Promise<Stripe.PaymentIntent | null> {
  const found = await stripe.paymentIntents.search({
    query: `metadata['orderId']:'${attemptId.replace(/'/g, "")}'`,
    limit: 10,
  });
  return found.data.find((i) => i.status === "succeeded") ?? found.data[0] ?? null;
}
