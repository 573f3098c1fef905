/**
 * The typed client of the emulator's controls (`/_emulator/*`) and of the
 * ledger reads the tests count charges in (`GET /v1/...`). Every consumer
 * (the tests, the browser journeys, the soak, the bench) drives the emulator
 * through it; the types are the emulator's own, so a fault the server does not
 * know does not compile here. It imports only types from the server side, so
 * it runs wherever `fetch` does.
 */
import type { Refund } from "./charges";
import type { StripeEvent } from "./events";
import type { FaultPatch } from "./fault-patch";
import type { HistoryIntent } from "./history";
import type { FaultsView, FaultSettings, FaultStats } from "./faults";
import type { PaymentIntent } from "./ledger";
import type { Permissions, RestrictedKey } from "./restricted-keys";
import type { WebhooksView } from "./control";
import type { WebhookConfig, WebhookFaults, WebhookPatch } from "./webhook-config";

export type {
  FaultPatch,
  FaultSettings,
  FaultStats,
  FaultsView,
  HistoryIntent,
  PaymentIntent,
  Permissions,
  Refund,
  RestrictedKey,
  StripeEvent,
  WebhookConfig,
  WebhookFaults,
  WebhookPatch,
  WebhooksView,
};

/** A counter of `GET /_emulator/webhooks` (`stats`), pending deliveries included. */
export type WebhookCounter = Exclude<keyof WebhooksView["stats"], "attempts">;

export interface EmulatorClientOptions {
  /**
   * The API key whose account the controls address (`Authorization: Bearer …`);
   * null, the default, addresses the default account. The ledger reads use
   * this key too, or any test key when it is null.
   */
  apiKey?: string | null;
  /** Each request gives up after this long. */
  timeoutMs?: number;
}

/** A control answered with an error: its status and the emulator's body (which says what is wrong). */
export class EmulatorRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what} answered ${status}: ${JSON.stringify(body)}`);
    this.name = "EmulatorRequestError";
  }
}

export class EmulatorClient {
  readonly apiKey: string | null;
  private readonly timeoutMs: number;

  constructor(
    readonly url: string,
    options: EmulatorClientOptions = {},
  ) {
    this.apiKey = options.apiKey ?? null;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** POST /_emulator/faults: merges `patch` into the armed faults; answers the new state. */
  faults(patch: FaultPatch): Promise<FaultsView> {
    return this.call("POST", "/_emulator/faults", patch);
  }

  /** GET /_emulator/faults: the armed faults, the writes held at the gate, the counters. */
  snapshot(): Promise<FaultsView> {
    return this.call("GET", "/_emulator/faults");
  }

  async stats(): Promise<FaultStats> {
    return (await this.snapshot()).stats;
  }

  async stat(name: keyof FaultStats): Promise<number> {
    return (await this.stats())[name];
  }

  /** Waits until n writes are held at the closed gate (the charge is still running there). */
  async held(n = 1, timeoutMs = 30_000): Promise<FaultsView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const snapshot = await this.snapshot();
      if (snapshot.held >= n) return snapshot;
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${n} write(s) held at the gate`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** POST /_emulator/webhooks: merges endpoint settings and webhook faults; answers the new state. */
  webhooks(patch: WebhookPatch): Promise<WebhooksView> {
    return this.call("POST", "/_emulator/webhooks", patch);
  }

  /** GET /_emulator/webhooks: where events go, the armed webhook faults, the delivery counters. */
  webhookSnapshot(): Promise<WebhooksView> {
    return this.call("GET", "/_emulator/webhooks");
  }

  async webhookStat(name: WebhookCounter): Promise<number> {
    return (await this.webhookSnapshot()).stats[name];
  }

  /** POST /_emulator/restricted_keys: a new `rk_test_…` on this account holding exactly these permissions. */
  restrictedKey(permissions: Permissions): Promise<RestrictedKey> {
    return this.call("POST", "/_emulator/restricted_keys", { permissions });
  }

  /**
   * POST /_emulator/reset: forgets faults, counters, idempotency keys, events
   * and the ledger of the account; with an API key, that key has an account of
   * its own from now on.
   */
  async reset(): Promise<void> {
    await this.call("POST", "/_emulator/reset", {});
  }

  /**
   * POST /_emulator/clock: moves the account's clock ahead by `seconds`,
   * deciding (with their events) the debits now due; answers how many it decided.
   */
  advanceClock(seconds: number): Promise<{ now: number; offsetSeconds: number; processing: number; settled: number }> {
    return this.call("POST", "/_emulator/clock", { advanceSeconds: seconds });
  }

  /**
   * POST /_emulator/history: succeeded payments recorded at past times
   * (each with its charge, without events); answers their ids in order.
   */
  history(intents: HistoryIntent[]): Promise<{ ids: string[] }> {
    return this.call("POST", "/_emulator/history", { intents });
  }

  /**
   * Every PaymentIntent of the account, newest first. This is a `/v1` request,
   * so it adds one to `stats.requests`: read the stats first when comparing.
   */
  async ledger(): Promise<PaymentIntent[]> {
    return this.list<PaymentIntent>("/v1/payment_intents?limit=100");
  }

  /** The refunds of one PaymentIntent, newest first. */
  refunds(paymentIntent: string): Promise<Refund[]> {
    return this.list<Refund>(`/v1/refunds?payment_intent=${encodeURIComponent(paymentIntent)}&limit=100`);
  }

  /** Every event the account's activity emitted, newest first. */
  events(): Promise<StripeEvent[]> {
    return this.list<StripeEvent>("/v1/events?limit=100");
  }

  private async list<T>(path: string): Promise<T[]> {
    const page = await this.call<{ data: T[]; has_more: boolean }>("GET", path, undefined, {
      // Any test key reads the default account; a key a reset named reads its own.
      authorization: `Bearer ${this.apiKey ?? "sk_test_x"}`,
    });
    if (page.has_more) throw new Error(`${path} holds more than 100 objects; the client reads one page`);
    return page.data;
  }

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        ...(this.apiKey === null ? {} : { authorization: `Bearer ${this.apiKey}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const json = (await response.json().catch(() => null)) as T;
    if (!response.ok) throw new EmulatorRequestError(response.status, json, `${method} ${path}`);
    return json;
  }
}
