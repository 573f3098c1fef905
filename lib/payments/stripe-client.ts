import Stripe from "stripe";
import { STRIPE_MAX_NETWORK_RETRIES, STRIPE_TIMEOUT_MS } from "./limits";

// The bounds live without the SDK, so parsing the configuration does not load it.
export { STRIPE_MAX_NETWORK_RETRIES, STRIPE_TIMEOUT_MS, worstCaseStripeCallMs } from "./limits";

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
