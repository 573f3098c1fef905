import type Stripe from "stripe";
import type { Env } from "../env";
import { createStripeClient } from "../payments/stripe-client";

/**
 * The audit's own Stripe client: the configured key and endpoint, the SDK's
 * bounds, none of the app's shared client's wrapping. Its reads go one at a
 * time and back off on 429 (provider-record.ts), and they are not counted
 * against the shop-wide provider budget the shoppers' payments draw on.
 */
export function auditStripeClient(env: Env): Stripe {
  return createStripeClient({
    secretKey: env.STRIPE_SECRET_KEY,
    apiBase: env.stripeApiBase,
    timeoutMs: env.STRIPE_TIMEOUT_MS,
    maxNetworkRetries: env.STRIPE_MAX_NETWORK_RETRIES,
  });
}
