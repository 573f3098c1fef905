import http from "node:http";
import type { AddressInfo } from "node:net";
import type Stripe from "stripe";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createStripeClient } from "../../../lib/payments/stripe-client";
import { EmulatorClient, type FaultPatch, type WebhookPatch } from "./client";
import { startStripeEmulator, type StripeEmulator } from "./server";

// Shared by the emulator's test files: one emulator per file, reset before
// each test, driven by the real stripe-node SDK built the way the app builds it.

export const SECRET_KEY = "sk_test_emulator";
export const VISA = { amount: 1999, currency: "usd", payment_method: "pm_card_visa", confirm: true } as const;

export function useEmulator() {
  let emulator: StripeEmulator | undefined;
  beforeAll(async () => {
    emulator = await startStripeEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  beforeEach(async () => {
    await client().reset();
  });
  const url = () => {
    if (!emulator) throw new Error("the emulator has not started");
    return emulator.url;
  };

  const client = () => new EmulatorClient(url());

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
    client,
    faults: () => client().snapshot(),
    setFaults: (patch: FaultPatch) => client().faults(patch),
    webhooks: () => client().webhookSnapshot(),
    setWebhooks: (patch: WebhookPatch) => client().webhooks(patch),
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
