import Stripe from "stripe";

/**
 * Bounds on every Stripe call. The idempotency layer's in-progress TTL must
 * outlive the worst case of one call (see `worstCaseStripeCallMs`), otherwise a
 * duplicate could retake a claim whose owner is still waiting on Stripe.
 */
export const STRIPE_TIMEOUT_MS = 20_000;
export const STRIPE_MAX_NETWORK_RETRIES = 2;
/** stripe-node sleeps at most 5 s between retries (MAX_NETWORK_RETRY_DELAY_SEC). */
const STRIPE_MAX_RETRY_DELAY_MS = 5_000;

export function worstCaseStripeCallMs(
  timeoutMs = STRIPE_TIMEOUT_MS,
  retries = STRIPE_MAX_NETWORK_RETRIES,
): number {
  return (retries + 1) * timeoutMs + retries * STRIPE_MAX_RETRY_DELAY_MS;
}

export interface StripeClientOptions {
  secretKey: string;
  /** e.g. `http://127.0.0.1:12111`; undefined reaches api.stripe.com. */
  apiBase?: string | undefined;
  timeoutMs?: number;
  maxNetworkRetries?: number;
}

/** The one way this project builds a Stripe SDK client. */
export function createStripeClient(options: StripeClientOptions): Stripe {
  const config: Stripe.StripeConfig = {
    timeout: options.timeoutMs ?? STRIPE_TIMEOUT_MS,
    maxNetworkRetries: options.maxNetworkRetries ?? STRIPE_MAX_NETWORK_RETRIES,
    telemetry: false,
    appInfo: { name: "checkout-never-twice" },
  };
  if (options.apiBase) {
    const url = new URL(options.apiBase);
    config.protocol = url.protocol === "https:" ? "https" : "http";
    config.host = url.hostname;
    config.port = url.port || (url.protocol === "https:" ? 443 : 80);
  }
  return new Stripe(options.secretKey, config);
}
