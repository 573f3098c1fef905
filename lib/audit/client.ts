import type Stripe from "stripe";
import type { Env } from "../env";
import { backgroundPace } from "../abuse/provider-budget";
import { createStripeClient } from "../payments/stripe-client";

/**
 * The audit's own Stripe client: the configured key and endpoint, the SDK's
 * bounds, none of the app's shared client's wrapping. Its reads go one at a
 * time and back off on 429 (provider-record.ts), and they draw on the budget
 * of the shop's own calls (PROVIDER_BACKGROUND_CALLS_PER_SECOND), never on
 * the shoppers'.
 */
export function auditStripeClient(env: Env): Stripe {
  return createStripeClient({
    secretKey: env.STRIPE_SECRET_KEY,
    apiBase: env.stripeApiBase,
    timeoutMs: env.STRIPE_TIMEOUT_MS,
    maxNetworkRetries: env.STRIPE_MAX_NETWORK_RETRIES,
    pace: backgroundPace(env.providerPerSecond.background),
  });
}
