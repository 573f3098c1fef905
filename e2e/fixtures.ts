import { expect, test as base, type BrowserContext, type Page, type Request } from "@playwright/test";
import type { OrderView } from "@/lib/checkout-client/types";
import { EmulatorClient, type PaymentIntent } from "@checkout/stripe-emulator/client";
import { startApp } from "@/scripts/lib/app-process";
import { freePort } from "@/tests/app-env";
import { E2E, STACK_APP_ENV } from "./settings";

/**
 * Fixtures for shopper journeys. `workerApp` is the worker's own `next start`
 * (every test's baseURL), whose API key has an account of its own at the one
 * shared Stripe emulator. `emulator` resets that account before every test
 * and reads its ledger, the provider's truth that tests count charges in, so
 * workers side by side never see each other's faults or charges. `shopper` is
 * the page's guest session, whose customer id tags every PaymentIntent it pays for.
 */
export interface Shopper {
  customerId: string;
  paymentIntents(): Promise<PaymentIntent[]>;
  /** The shop's own record: GET /api/orders with the page's session, newest first. */
  orders(): Promise<OrderView[]>;
}

/** The worker's app server: its URL, API key (its emulator account) and variables (for specs that start another). */
export interface WorkerApp {
  url: string;
  apiKey: string;
  env: Record<string, string>;
}

export const test = base.extend<
  { emulator: EmulatorClient; shopper: Shopper; pageErrors: string[] },
  { workerApp: WorkerApp }
>({
  workerApp: [
    async ({}, use, workerInfo) => {
      const stackEnv = JSON.parse(process.env[STACK_APP_ENV] ?? "null") as Record<string, string> | null;
      if (!stackEnv) throw new Error(`${STACK_APP_ENV} is not set: e2e/global-setup.ts starts the stack`);
      const apiKey = `sk_test_e2e_worker_${workerInfo.parallelIndex}`;
      const env = { ...stackEnv, STRIPE_SECRET_KEY: apiKey };
      // The first worker on E2E_APP_PORT (a port the run owns), the others on free ports.
      const port = workerInfo.parallelIndex === 0 ? E2E.appPort : await freePort();
      const log = process.env.E2E_APP_LOG ? (line: string) => console.log(`[app:${port}] ${line}`) : undefined;
      const app = await startApp({ port, env, log });
      // Every test's baseURL (Playwright's default for the option; this fixture is set up first, automatically).
      process.env.PLAYWRIGHT_TEST_BASE_URL = app.url;
      await use({ url: app.url, apiKey, env });
      await app.stop();
    },
    { scope: "worker", auto: true, timeout: 90_000 },
  ],
  // A journey that "passes" while React reports a hydration mismatch or a crash is not passing.
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => {
        // Chromium logs every non-2xx response (402, 409, 503 are part of the journeys).
        if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
          errors.push(message.text());
      });
      await use(errors);
      expect(errors, "errors in the browser console").toEqual([]);
    },
    { auto: true },
  ],
  emulator: [
    async ({ workerApp }, use) => {
      // Every control names the worker's key: its own account (packages/stripe-emulator/src/accounts.ts).
      const emulator = new EmulatorClient(E2E.emulatorUrl, { apiKey: workerApp.apiKey });
      await emulator.reset();
      await use(emulator);
    },
    { auto: true },
  ],
  shopper: async ({ page, emulator }, use) => {
    // Shares the page's cookies: starts the session the pages will use, or returns it.
    const response = await page.request.post("/api/session");
    expect(response.ok()).toBe(true);
    const { customerId } = (await response.json()) as { customerId: string };
    const orders = async () => {
      const list = await page.request.get("/api/orders");
      expect(list.ok(), await list.text()).toBe(true);
      return (await list.json()) as OrderView[];
    };
    await use({ customerId, paymentIntents: () => paymentIntentsOf(emulator, customerId), orders });
  },
});

/** The ledger's PaymentIntents for one customer, newest first. */
export async function paymentIntentsOf(emulator: EmulatorClient, customerId: string): Promise<PaymentIntent[]> {
  return (await emulator.ledger()).filter((intent) => intent.metadata.customerId === customerId);
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

/** One POST /api/checkout as the browser saw it: what was sent, and what came back or how it failed. */
export interface CheckoutExchange {
  key: string;
  /** The exact body sent. */
  body: string;
  /** Which page sent it (1 = the first page seen). */
  tab: number;
  /**
   * Which document of its tab sent it: the count of the tab's main-frame
   * navigations seen before it (see `navigations`). A request an unloading
   * page sent just before a reload carries the old count, so "sent by the
   * reloaded page" is an event, not a clock.
   */
  document: number;
  sentAt: number;
  /** When the response's headers arrived (null: none did). */
  answeredAt: number | null;
  /** The browser's own clock (Resource Timing), free of the test runner's delays: request start and response end. */
  browserTiming: { startedAt: number; finishedAt: number } | null;
  status: number | null;
  /** The response's Idempotent-Replayed header was `true`. */
  replayed: boolean;
  retryAfter: string | null;
  /** The parsed JSON body, once read (see `settled`). */
  json: Record<string, unknown> | null;
  /** The network error, e.g. `net::ERR_CONNECTION_RESET`, when no response arrived. */
  failure: string | null;
}

export interface CheckoutTraffic {
  exchanges: CheckoutExchange[];
  /** How many main-frame navigations the page has made so far (a reload is one). */
  navigations(page?: Page): number;
  /** Waits until every response body seen so far has been read. */
  settled(): Promise<CheckoutExchange[]>;
}

/**
 * Every POST /api/checkout of a page (or of all pages of a context), with its
 * answer or its failure: the evidence that a duplicate was answered 409, a
 * lost response was retried, a replay carried Idempotent-Replayed.
 */
export function recordCheckoutTraffic(source: Page | BrowserContext): CheckoutTraffic {
  const exchanges: CheckoutExchange[] = [];
  const byRequest = new Map<Request, CheckoutExchange>();
  const tabs = new Map<Page | null, number>();
  const navigated = new Map<Page, number>();
  const reads: Array<Promise<unknown>> = [];
  // A context emits the same network events as a page, for all its pages.
  const events = source as Page;
  const countNavigations = (page: Page) =>
    page.on("framenavigated", (frame) => {
      if (frame === page.mainFrame()) navigated.set(page, (navigated.get(page) ?? 0) + 1);
    });
  if ("mainFrame" in source) countNavigations(source);
  else {
    source.pages().forEach(countNavigations);
    source.on("page", countNavigations);
  }
  events.on("request", (request) => {
    if (request.method() !== "POST" || new URL(request.url()).pathname !== "/api/checkout") return;
    const frame = request.frame();
    const page = frame.page();
    if (!tabs.has(page)) tabs.set(page, tabs.size + 1);
    const exchange: CheckoutExchange = {
      key: request.headers()["idempotency-key"] ?? "(none)",
      body: request.postData() ?? "",
      tab: tabs.get(page)!,
      document: page ? (navigated.get(page) ?? 0) : 0,
      sentAt: Date.now(),
      answeredAt: null,
      browserTiming: null,
      status: null,
      replayed: false,
      retryAfter: null,
      json: null,
      failure: null,
    };
    exchanges.push(exchange);
    byRequest.set(request, exchange);
  });
  events.on("response", (response) => {
    const exchange = byRequest.get(response.request());
    if (!exchange) return;
    const headers = response.headers();
    exchange.answeredAt = Date.now();
    exchange.status = response.status();
    exchange.replayed = headers["idempotent-replayed"] === "true";
    exchange.retryAfter = headers["retry-after"] ?? null;
    reads.push(
      response.json().then(
        (json: Record<string, unknown>) => (exchange.json = json),
        () => undefined, // the page navigated away before the body was kept
      ),
    );
  });
  events.on("requestfinished", (request) => {
    const exchange = byRequest.get(request);
    const timing = request.timing();
    if (exchange && timing.responseEnd >= 0) {
      exchange.browserTiming = { startedAt: timing.startTime, finishedAt: timing.startTime + timing.responseEnd };
    }
  });
  events.on("requestfailed", (request) => {
    const exchange = byRequest.get(request);
    if (exchange) exchange.failure = request.failure()?.errorText ?? "failed";
  });
  return {
    exchanges,
    navigations: (page) => navigated.get(page ?? (source as Page)) ?? 0,
    async settled() {
      await Promise.all(reads);
      return exchanges;
    },
  };
}

export { expect };
