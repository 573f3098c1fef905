import "server-only";
import type Stripe from "stripe";
import { env, type Env } from "../env";
import { observe } from "../observability";
import { checkKeyPair, probeKeyPair, type KeyPairVerdict } from "./key-pair";
import { describeRefusal, watchRefusals, type ProviderRefusal } from "./provider-refusals";
import { backgroundPace } from "../abuse/provider-budget";
import { createStripeClient } from "./stripe-client";

const globalForStripe = globalThis as unknown as { stripe?: Stripe; stripeProbe?: Stripe; background?: Stripe };

/**
 * The app's Stripe client for the shoppers' requests: real Stripe test mode,
 * or the emulator (docs/contract.md §5). Their calls are admitted by the
 * checkout's provider budget before they start (lib/abuse/checkout-gate.ts).
 */
export function stripe(): Stripe {
  globalForStripe.stripe ??= stripeFor(env());
  return globalForStripe.stripe;
}

/**
 * The client of the shop's own calls (webhooks, the reconciler, the events
 * catch-up): each waits for a place in PROVIDER_BACKGROUND_CALLS_PER_SECOND,
 * a budget apart from the shoppers'.
 */
export function backgroundStripe(): Stripe {
  globalForStripe.background ??= stripeFor(env(), "background");
  return globalForStripe.background;
}

/** A client with the configured key, endpoint and bounds, whose refusals (401, 403) are reported. */
export function stripeFor(config: Env, budget: "shoppers" | "background" = "shoppers"): Stripe {
  const client = createStripeClient({
    secretKey: config.STRIPE_SECRET_KEY,
    apiBase: config.stripeApiBase,
    timeoutMs: config.STRIPE_TIMEOUT_MS,
    maxNetworkRetries: config.STRIPE_MAX_NETWORK_RETRIES,
    ...(budget === "background" ? { pace: backgroundPace(config.providerPerSecond.background) } : {}),
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
