import Stripe from "stripe";
import { traceStripeCalls } from "../tracing/spans";
import { STRIPE_MAX_NETWORK_RETRIES, STRIPE_TIMEOUT_MS } from "./limits";

// The bounds live without the SDK, so parsing the configuration does not load it.
export { STRIPE_MAX_NETWORK_RETRIES, STRIPE_TIMEOUT_MS, worstCaseStripeCallMs } from "./limits";

export interface StripeClientOptions {
  secretKey: string;
  /** e.g. `http://127.0.0.1:12111`; undefined reaches api.stripe.com. */
  apiBase?: string | undefined;
  timeoutMs?: number;
  maxNetworkRetries?: number;
  /**
   * Waits for a place in a budget before each request (lib/abuse/provider-budget.ts),
   * at most `maxWaitMs`; answers how long it waited, null when no place came in time.
   */
  pace?: (maxWaitMs: number) => Promise<number | null>;
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
  if (options.pace) config.httpClient = paced(Stripe.createNodeHttpClient(), options.pace);
  const stripe = new Stripe(options.secretKey, config);
  traceStripeCalls(stripe, {
    host: config.host ?? "api.stripe.com",
    port: Number(config.port ?? 443),
    protocol: config.protocol ?? "https",
  });
  return stripe;
}

/**
 * Every request (each retry too) waits for its place first. The wait comes out
 * of the request's own timeout, so a call still ends within the SDK's bounds
 * (worstCaseStripeCallMs): one that found no place in time fails as a timeout,
 * which every caller already treats as "ask again later".
 */
function paced(
  inner: NonNullable<Stripe.StripeConfig["httpClient"]>,
  pace: (maxWaitMs: number) => Promise<number | null>,
): NonNullable<Stripe.StripeConfig["httpClient"]> {
  return {
    getClientName: () => inner.getClientName(),
    async makeRequest(host, port, path, method, headers, requestData, protocol, timeout) {
      const waited = await pace(timeout);
      if (waited === null || waited >= timeout) throw Stripe.HttpClient.makeTimeoutError();
      return inner.makeRequest(host, port, path, method, headers, requestData, protocol, timeout - waited);
    },
  };
}
