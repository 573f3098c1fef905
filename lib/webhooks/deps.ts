import type { CheckoutDeps } from "../checkout/checkout";

/** What receiving and processing webhook events need: the checkout's dependencies, plus these. */
export interface WebhookDeps extends CheckoutDeps {
  /** `STRIPE_WEBHOOK_SECRET`: verifies the `Stripe-Signature` header. */
  webhookSecret: string;
  /**
   * How long one processing attempt holds an event before another worker may
   * presume it dead and try again. A second try while the first still runs is
   * harmless (every effect is fenced or idempotent), only wasted work.
   */
  leaseMs: number;
}
