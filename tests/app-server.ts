import { inject } from "vitest";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { startStripeEmulator, type StripeEmulator } from "@/scripts/stripe-emulator/server";

/**
 * A real `next start` server (the production build in TEST_DIST_DIR) against
 * the test database and an emulator of its own, for tests that go through
 * HTTP. Each call gets fresh ports, so test files can run in parallel.
 */
import { TEST_DIST_DIR } from "./constants";
/** 32 random bytes, hex, as `openssl rand -hex 32` makes them (the app refuses weaker secrets). */
export const TEST_SESSION_SECRET = "9f3c1e7a5b2d48c6a0e4f7b19d3c5a8e2b6f0d4c7a1e9b3f5d8c2a6e0b4f7d1c";
export const TEST_METRICS_TOKEN = "4b8e2f6a0c3d7e1b5f9a2c6e0d4b8f3a7c1e5d9b2f6a0c4e8d3b7f1a5c9e2d6b";

export interface TestApp {
  url: string;
  emulator: StripeEmulator;
  app: AppProcess;
  env: Record<string, string>;
  /** Starts the server again on the same port (after a crash). */
  restart(): Promise<AppProcess>;
  stop(): Promise<void>;
}

export async function startTestApp(env: Record<string, string> = {}, emulator?: StripeEmulator): Promise<TestApp> {
  const ownEmulator = !emulator;
  const stripe = emulator ?? (await startStripeEmulator({ port: 0 }));
  const port = await freePort();
  const appEnv = {
    DATABASE_URL: inject("databaseUrl"),
    STRIPE_SECRET_KEY: "sk_test_emulator",
    STRIPE_API_BASE: stripe.url,
    SESSION_SECRET: TEST_SESSION_SECRET,
    METRICS_TOKEN: TEST_METRICS_TOKEN,
    // Many tests start sessions and attempts from 127.0.0.1 at once: the abuse limits, raised (lib/abuse/limits.ts).
    RATE_LIMIT_SCALE: "1000",
    NEXT_DIST_DIR: TEST_DIST_DIR,
    // Off unless a test asks for it: a reconciler takes over every abandoned attempt in its database, other tests' included.
    MAINTENANCE_INTERVAL_MS: "0",
    ...env,
  };
  const log = process.env.TEST_APP_LOG ? (line: string) => console.log(`[app:${port}] ${line}`) : undefined;
  const testApp: TestApp = {
    url: `http://localhost:${port}`,
    emulator: stripe,
    app: await startApp({ port, env: appEnv, log }).catch(async (err: unknown) => {
      if (ownEmulator) await stripe.close();
      throw err;
    }),
    env: appEnv,
    async restart() {
      testApp.app = await startApp({ port, env: appEnv, log });
      return testApp.app;
    },
    async stop() {
      await testApp.app.stop();
      if (ownEmulator) await stripe.close();
    },
  };
  return testApp;
}

export async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
