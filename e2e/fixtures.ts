import { expect, test as base, type APIRequestContext, type Page } from "@playwright/test";
import { E2E } from "./settings";

/**
 * Fixtures for shopper journeys. `emulator` resets the one shared Stripe
 * emulator before every test (faults are global to it) and reads its ledger,
 * the provider's truth that tests count charges in. `shopper` is the page's
 * guest session, whose customer id tags every PaymentIntent it pays for.
 */
export interface LedgerIntent {
  id: string;
  status: "requires_payment_method" | "requires_confirmation" | "succeeded";
  amount: number;
  currency: string;
  metadata: Record<string, string>;
  last_payment_error: { decline_code: string } | null;
}

export interface Faults {
  latencyMs?: number;
  failNext?: { status: 500 | 503 | 429; times: number } | null;
  dropAfterCharge?: number;
}

export interface FaultStats {
  requests: number;
  failedInjected: number;
  dropped: number;
  charges: number;
  declines: number;
  replayed: number;
  delayed: number;
}

export interface Emulator {
  setFaults(faults: Faults): Promise<void>;
  stats(): Promise<FaultStats>;
  /** The ledger's PaymentIntents for one customer, newest first. */
  paymentIntents(customerId: string): Promise<LedgerIntent[]>;
}

export interface Shopper {
  customerId: string;
  paymentIntents(): Promise<LedgerIntent[]>;
}

export const test = base.extend<{ emulator: Emulator; shopper: Shopper; pageErrors: string[] }>({
  // A journey that "passes" while React reports a hydration mismatch or a crash is not passing.
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => {
        // Chromium logs every non-2xx response (402, 409, 503 are part of the journeys).
        if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) errors.push(message.text());
      });
      await use(errors);
      expect(errors, "errors in the browser console").toEqual([]);
    },
    { auto: true },
  ],
  emulator: [
    async ({ playwright }, use) => {
      const api = await playwright.request.newContext({ baseURL: E2E.emulatorUrl });
      expect((await api.post("/_emulator/reset")).ok()).toBe(true);
      await use(emulatorClient(api));
      await api.dispose();
    },
    { auto: true },
  ],
  shopper: async ({ page, emulator }, use) => {
    // Shares the page's cookies: starts the session the pages will use, or returns it.
    const response = await page.request.post("/api/session");
    expect(response.ok()).toBe(true);
    const { customerId } = (await response.json()) as { customerId: string };
    await use({ customerId, paymentIntents: () => emulator.paymentIntents(customerId) });
  },
});

function emulatorClient(api: APIRequestContext): Emulator {
  return {
    async setFaults(faults) {
      const response = await api.post("/_emulator/faults", { data: faults });
      expect(response.ok(), await response.text()).toBe(true);
    },
    async stats() {
      return ((await (await api.get("/_emulator/faults")).json()) as { stats: FaultStats }).stats;
    },
    async paymentIntents(customerId) {
      const response = await api.get("/v1/payment_intents?limit=100", { headers: { Authorization: "Bearer sk_test_x" } });
      expect(response.ok(), await response.text()).toBe(true);
      const { data } = (await response.json()) as { data: LedgerIntent[] };
      return data.filter((intent) => intent.metadata.customerId === customerId);
    },
  };
}

/** Every Idempotency-Key the page sends to POST /api/checkout, in order. */
export function recordCheckoutKeys(page: Page): string[] {
  const keys: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && new URL(request.url()).pathname === "/api/checkout") {
      keys.push(request.headers()["idempotency-key"] ?? "(none)");
    }
  });
  return keys;
}

export { expect };
