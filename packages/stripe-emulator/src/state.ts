import { EventLog } from "./events";
import { Faults } from "./faults";
import { IdempotencyStore } from "./idempotency";
import { Later } from "./later";
import { Ledger } from "./ledger";
import { defaultWebhookConfig } from "./webhook-config";
import { WebhookDispatcher } from "./webhooks";

/**
 * Everything `POST /_emulator/reset` forgets. A reset swaps in a fresh State
 * rather than clearing the old one in place: a request still sleeping in
 * injected latency keeps its own State and finishes there, so it cannot leak a
 * charge into the next test.
 */
export interface State {
  ledger: Ledger;
  idempotency: IdempotencyStore;
  faults: Faults;
  events: EventLog;
  webhooks: WebhookDispatcher;
  later: Later;
}

/** The webhook endpoint a fresh State starts with (STRIPE_WEBHOOK_URL / STRIPE_WEBHOOK_SECRET in main.ts). */
export interface WebhookDefaults {
  url?: string | null;
  secret?: string;
}

export function freshState(webhook: WebhookDefaults = {}): State {
  const webhooks = new WebhookDispatcher(defaultWebhookConfig(webhook.url ?? null, webhook.secret));
  return {
    ledger: new Ledger(),
    idempotency: new IdempotencyStore(),
    faults: new Faults(),
    events: new EventLog(webhooks),
    webhooks,
    later: new Later(),
  };
}
