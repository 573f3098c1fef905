import type { WebhookConfig, WebhookFaults } from "@/scripts/stripe-emulator/webhook-config";
import type { WebhookStats } from "@/scripts/stripe-emulator/webhooks";
import type { StripeEventLike } from "./webhooks";

/**
 * The emulator's webhook side, as a test sees it: where it delivers
 * (`POST /_emulator/webhooks`), what it did (`stats`), the events it emitted
 * (`GET /v1/events`) and the refunds in its ledger (`GET /v1/refunds`).
 */
export type WebhookView = WebhookConfig & { faults: WebhookFaults; stats: WebhookStats & { pending: number } };

export interface LedgerRefund {
  id: string;
  amount: number;
  payment_intent: string;
  status: string;
  failure_reason?: string;
}

const API_KEY = { authorization: "Bearer sk_test_x" };

async function call<T>(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

export class EmulatorWebhooks {
  constructor(readonly emulatorUrl: string) {}

  /** Points deliveries at `appUrl`'s endpoint, with faults and retry settings merged in. */
  deliverTo(
    appUrl: string,
    patch: Partial<WebhookConfig> & { faults?: Partial<WebhookFaults> } = {},
  ): Promise<WebhookView> {
    return call(`${this.emulatorUrl}/_emulator/webhooks`, "POST", {
      url: `${appUrl}/api/webhooks/stripe`,
      secret: "whsec_emulator",
      ...patch,
    });
  }

  configure(patch: Partial<WebhookConfig> & { faults?: Partial<WebhookFaults> }): Promise<WebhookView> {
    return call(`${this.emulatorUrl}/_emulator/webhooks`, "POST", patch);
  }

  view(): Promise<WebhookView> {
    return call(`${this.emulatorUrl}/_emulator/webhooks`, "GET");
  }

  /** Every event the emulator emitted, newest first. */
  async events(): Promise<StripeEventLike[]> {
    const page = await call<{ data: StripeEventLike[] }>(
      `${this.emulatorUrl}/v1/events?limit=100`,
      "GET",
      undefined,
      API_KEY,
    );
    return page.data;
  }

  async refunds(paymentIntentId: string): Promise<LedgerRefund[]> {
    const page = await call<{ data: LedgerRefund[] }>(
      `${this.emulatorUrl}/v1/refunds?payment_intent=${encodeURIComponent(paymentIntentId)}&limit=100`,
      "GET",
      undefined,
      API_KEY,
    );
    return page.data;
  }
}
