/**
 * The Stripe emulator's control API and ledger, as a test sees them
 * (scripts/stripe-emulator/README.md). Every fault a test injects is checked
 * against `stats`, the emulator's counters of what really happened.
 */
import type { FaultStats } from "@/scripts/stripe-emulator/faults";

export type { FaultStats };

export interface FaultSnapshot {
  latencyMs: number;
  failNext: { status: 500 | 503 | 429; times: number } | null;
  dropAfterCharge: number;
  stats: FaultStats;
}

export interface FaultPatch {
  latencyMs?: number;
  answerLatencyMs?: number;
  failNext?: { status: 500 | 503 | 429; times: number } | null;
  dropAfterCharge?: number;
  storeCreate500?: number;
  refuse?: { status: 401 | 403 } | null;
}

export interface LedgerIntent {
  id: string;
  amount: number;
  currency: string;
  status: "requires_payment_method" | "requires_confirmation" | "succeeded";
  latest_charge: string | null;
  last_payment_error: { code: string; decline_code: string } | null;
  metadata: Record<string, string>;
}

export class Emulator {
  constructor(readonly url: string) {}

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as T;
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  }

  /** Merges `patch` into the armed faults. */
  faults(patch: FaultPatch): Promise<FaultSnapshot> {
    return this.call("POST", "/_emulator/faults", patch);
  }

  snapshot(): Promise<FaultSnapshot> {
    return this.call("GET", "/_emulator/faults");
  }

  async stats(): Promise<FaultStats> {
    return (await this.snapshot()).stats;
  }

  /** Clears faults, counters, idempotency keys and the ledger. */
  async reset(): Promise<void> {
    await this.call("POST", "/_emulator/reset", {});
  }

  /**
   * Every PaymentIntent, newest first. Note: this is a `/v1` request, so it
   * adds one to `stats.requests`; read stats before the ledger when comparing.
   */
  async ledger(): Promise<LedgerIntent[]> {
    const page = await this.call<{ data: LedgerIntent[]; has_more: boolean }>(
      "GET",
      "/v1/payment_intents?limit=100",
      undefined,
      {
        authorization: "Bearer sk_test_x",
      },
    );
    if (page.has_more) throw new Error("The ledger holds more than 100 PaymentIntents; a test should never get here");
    return page.data;
  }
}
