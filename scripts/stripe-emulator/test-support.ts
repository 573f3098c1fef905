import http from "node:http";
import type { AddressInfo } from "node:net";
import type Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { createStripeClient } from "../../lib/payments/stripe-client";
import type { FaultSettings, FaultStats } from "./faults";
import { startStripeEmulator, type StripeEmulator } from "./server";
import type { WebhookConfig, WebhookFaults } from "./webhook-config";
import type { WebhookStats } from "./webhooks";

// Shared by the emulator's test files: one emulator per file, reset before
// each test, driven by the real stripe-node SDK built the way the app builds it.

export const SECRET_KEY = "sk_test_emulator";
export const VISA = { amount: 1999, currency: "usd", payment_method: "pm_card_visa", confirm: true } as const;

export type FaultsView = FaultSettings & { stats: FaultStats };
export type WebhooksView = WebhookConfig & { faults: WebhookFaults; stats: WebhookStats & { pending: number } };

export function useEmulator() {
  let emulator: StripeEmulator | undefined;
  beforeAll(async () => {
    emulator = await startStripeEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  beforeEach(async () => {
    const res = await fetch(`${url()}/_emulator/reset`, { method: "POST" });
    expect(res.status).toBe(200);
  });
  const url = () => {
    if (!emulator) throw new Error("the emulator has not started");
    return emulator.url;
  };

  async function control<T>(path: string, body?: unknown): Promise<T> {
    const res = await fetch(
      `${url()}${path}`,
      body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
    );
    const json = (await res.json()) as T;
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  }

  return {
    url,
    stripe(options: { maxNetworkRetries?: number; timeoutMs?: number; secretKey?: string } = {}): Stripe {
      return createStripeClient({
        secretKey: options.secretKey ?? SECRET_KEY,
        apiBase: url(),
        maxNetworkRetries: options.maxNetworkRetries ?? 0,
        timeoutMs: options.timeoutMs ?? 10_000,
      });
    },
    faults: () => control<FaultsView>("/_emulator/faults"),
    setFaults: (patch: Partial<FaultSettings>) => control<FaultsView>("/_emulator/faults", patch),
    webhooks: () => control<WebhooksView>("/_emulator/webhooks"),
    setWebhooks: (
      patch: Partial<Omit<WebhookConfig, "url">> & { url?: string | null; faults?: Partial<WebhookFaults> },
    ) => control<WebhooksView>("/_emulator/webhooks", patch),
  };
}

/** Settles a promise into its error, failing the test if it resolved. */
export async function rejection(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await promise;
  } catch (error) {
    return error as Stripe.errors.StripeError;
  }
  throw new Error("expected the call to be rejected, but it resolved");
}

export interface Received {
  body: string;
  signature: string | undefined;
}

/** A local webhook endpoint that records each POST and answers with the status `respond` picks (default 200). */
export async function startReceiver(respond: (received: Received) => number = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const delivery = {
        body: Buffer.concat(chunks).toString("utf8"),
        signature: req.headers["stripe-signature"] as string | undefined,
      };
      received.push(delivery);
      res.writeHead(respond(delivery)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
