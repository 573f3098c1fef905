import { inject } from "vitest";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { startStripeEmulator } from "@checkout/stripe-emulator";
import { freePort, testAppEnv } from "./app-env";

export { freePort, TEST_METRICS_TOKEN, TEST_SESSION_SECRET, testAppEnv } from "./app-env";

/**
 * A real `next start` server (the production build in TEST_DIST_DIR) against
 * the test database and a Stripe emulator, for tests that go through HTTP.
 * Each call gets fresh ports, so test files can run in parallel.
 */
/** The emulator a test app talks to, and the API key it uses there (its account: packages/stripe-emulator/src/accounts.ts). */
export interface TestProvider {
  url: string;
  apiKey: string;
}

export interface TestApp {
  url: string;
  emulator: TestProvider;
  /** The server's process (only for servers a test file started itself: see `shared`). */
  app: AppProcess;
  env: Record<string, string>;
  /** Starts the server again on the same port (after a crash). */
  restart(): Promise<AppProcess>;
  /** Starts the server again if its process has exited: a test that failed after killing it leaves none. */
  revive(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a server; without `emulator` it gets an emulator of its own (stopped with it). */
export async function startTestApp(
  env: Record<string, string> = {},
  emulator?: { url: string; apiKey?: string },
): Promise<TestApp> {
  const own = emulator ? null : await startStripeEmulator({ port: 0 });
  const provider: TestProvider = { url: emulator?.url ?? own!.url, apiKey: emulator?.apiKey ?? "sk_test_emulator" };
  const port = await freePort();
  const appEnv = testAppEnv({
    databaseUrl: inject("databaseUrl"),
    stripeApiBase: provider.url,
    stripeKey: provider.apiKey,
    overrides: env,
  });
  const log = process.env.TEST_APP_LOG ? (line: string) => console.log(`[app:${port}] ${line}`) : undefined;
  let exited = false;
  const watch = (app: AppProcess): AppProcess => {
    exited = false;
    void app.exited.then(() => {
      if (testApp.app === app) exited = true;
    });
    return app;
  };
  const testApp: TestApp = {
    url: `http://localhost:${port}`,
    emulator: provider,
    app: await startApp({ port, env: appEnv, log }).catch(async (err: unknown) => {
      await own?.close();
      throw err;
    }),
    env: appEnv,
    async restart() {
      testApp.app = await startApp({ port, env: appEnv, log });
      return watch(testApp.app);
    },
    async revive() {
      if (exited) await testApp.restart();
    },
    async stop() {
      await testApp.app.stop();
      await own?.close();
    },
  };
  watch(testApp.app);
  return testApp;
}

/**
 * This worker's server on the default configuration, started once per run by
 * tests/app-global-setup.ts and shared by the files the worker runs one after
 * another; null outside the `app` tier. It cannot be killed or restarted.
 */
export function sharedTestApp(): TestApp | null {
  const apps = inject("workerApps");
  const index = Number(process.env.VITEST_POOL_ID ?? "1") - 1;
  const shared = apps?.[index];
  if (!shared) return null;
  const refuse = (): never => {
    throw new Error(
      "The worker's shared app server is not this file's to stop: give the file a configuration of its own",
    );
  };
  return {
    url: shared.url,
    emulator: { url: shared.env.STRIPE_API_BASE!, apiKey: shared.env.STRIPE_SECRET_KEY! },
    get app(): AppProcess {
      return refuse();
    },
    env: shared.env,
    restart: async () => refuse(),
    revive: async () => undefined,
    stop: async () => undefined,
  };
}
