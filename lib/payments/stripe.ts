import "server-only";
import type Stripe from "stripe";
import { env, type Env } from "../env";
import { createStripeClient } from "./stripe-client";

const globalForStripe = globalThis as unknown as { stripe?: Stripe; stripeProbe?: Stripe };

/** The app's Stripe client: real Stripe test mode, or the emulator (docs/contract.md §5). */
export function stripe(): Stripe {
  globalForStripe.stripe ??= stripeFor(env());
  return globalForStripe.stripe;
}

/** A client with the configured key, endpoint and bounds. */
export function stripeFor(config: Env): Stripe {
  return createStripeClient({
    secretKey: config.STRIPE_SECRET_KEY,
    apiBase: config.stripeApiBase,
    timeoutMs: config.STRIPE_TIMEOUT_MS,
    maxNetworkRetries: config.STRIPE_MAX_NETWORK_RETRIES,
  });
}

/** A fast-failing client for health checks: one try, two seconds. */
export function stripeProbe(): Stripe {
  globalForStripe.stripeProbe ??= createStripeClient({
    secretKey: env().STRIPE_SECRET_KEY,
    apiBase: env().stripeApiBase,
    timeoutMs: 2_000,
    maxNetworkRetries: 0,
  });
  return globalForStripe.stripeProbe;
}
