/**
 * The Stripe emulator's control API and ledger, as a test sees them
 * (scripts/stripe-emulator/README.md). At an emulator shared by the workers
 * every control names the app's API key, so faults, counters and ledger are
 * the account of that app alone. Every fault a test injects is checked against `stats`, the
 * emulator's counters of what really happened.
 */
import type { FaultStats } from "@/scripts/stripe-emulator/faults";

export type { FaultStats };

export interface FaultSnapshot {
  latencyMs: number;
  failNext: { status: 500 | 503 | 429; times: number } | null;
  dropAfterCharge: number;
  gate: boolean;
  /** Writes waiting at the closed gate now. */
  held: number;
  stats: FaultStats;
}

export interface FaultPatch {
  latencyMs?: number;
  answerLatencyMs?: number;
  failNext?: { status: 500 | 503 | 429; times: number } | null;
  dropAfterCharge?: number;
  storeCreate500?: number;
  refuse?: { status: 401 | 403 } | null;
  /** true: hold every write (key claimed) until released; false: open and let every held write go. */
  gate?: boolean;
  /** Let the n oldest held writes go, the gate staying closed. */
  release?: number;
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
  constructor(
    readonly url: string,
    /** The app's API key when it has an account of its own at a shared emulator; null: the default account. */
    readonly account: string | null = null,
  ) {}

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        ...(this.account === null ? {} : { authorization: `Bearer ${this.account}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
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

  /** Waits until n writes are held at the gate: the charge is still running. */
  async held(n = 1): Promise<FaultSnapshot> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const snapshot = await this.snapshot();
      if (snapshot.held >= n) return snapshot;
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${n} write(s) held at the gate`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Clears faults, counters, idempotency keys and the ledger of the app's account (its own from now on). */
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
      { authorization: `Bearer ${this.account ?? "sk_test_x"}` },
    );
    if (page.has_more) throw new Error("The ledger holds more than 100 PaymentIntents; a test should never get here");
    return page.data;
  }
}
