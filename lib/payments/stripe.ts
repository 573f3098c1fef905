import "server-only";
import type Stripe from "stripe";
import { env, type Env } from "../env";
import { observe } from "../observability";
import { checkKeyPair, probeKeyPair, type KeyPairVerdict } from "./key-pair";
import { describeRefusal, watchRefusals, type ProviderRefusal } from "./provider-refusals";
import { createStripeClient } from "./stripe-client";

const globalForStripe = globalThis as unknown as { stripe?: Stripe; stripeProbe?: Stripe };

/** The app's Stripe client: real Stripe test mode, or the emulator (docs/contract.md §5). */
export function stripe(): Stripe {
  globalForStripe.stripe ??= stripeFor(env());
  return globalForStripe.stripe;
}

/** A client with the configured key, endpoint and bounds, whose refusals (401, 403) are reported. */
export function stripeFor(config: Env): Stripe {
  const client = createStripeClient({
    secretKey: config.STRIPE_SECRET_KEY,
    apiBase: config.stripeApiBase,
    timeoutMs: config.STRIPE_TIMEOUT_MS,
    maxNetworkRetries: config.STRIPE_MAX_NETWORK_RETRIES,
  });
  return watchRefusals(client, reportRefusal);
}

/** A fast-failing client for health checks: one try, two seconds. */
export function stripeProbe(): Stripe {
  globalForStripe.stripeProbe ??= watchRefusals(
    createStripeClient({
      secretKey: env().STRIPE_SECRET_KEY,
      apiBase: env().stripeApiBase,
      timeoutMs: 2_000,
      maxNetworkRetries: 0,
    }),
    reportRefusal,
  );
  return globalForStripe.stripeProbe;
}

function reportRefusal(refusal: ProviderRefusal, alarm: boolean): void {
  observe("provider_refused", { status: refusal.status, path: refusal.path, alarm, message: describeRefusal(refusal) });
}

/**
 * Whether the publishable and the secret key are of one account (key-pair.ts):
 * checked at most once a minute; two accounts raise an alarm and log an error.
 */
export function verifyKeyPair(): Promise<KeyPairVerdict> {
  const config = env();
  const publishableKey = config.NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY;
  if (!publishableKey) return Promise.resolve("unknown");
  // Its own client: a restricted key without ConfirmationTokens: Read is no refusal of the payment path.
  const client = createStripeClient({
    secretKey: config.STRIPE_SECRET_KEY,
    apiBase: config.stripeApiBase,
    timeoutMs: 5_000,
    maxNetworkRetries: 0,
  });
  return checkKeyPair(
    () => probeKeyPair(client, publishableKey, config.stripeApiBase ?? null),
    (message) => observe("keys_of_two_accounts", { alarm: true, message }),
  );
}
