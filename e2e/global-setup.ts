import { parseEnv } from "@/lib/env";
import { startStack } from "@/scripts/lib/stack";
import { TEST_OPS_TOKEN } from "@/tests/app-env";
import { testEnvironment } from "@/tests/constants";
import { E2E, STACK_APP_ENV } from "./settings";

/**
 * Starts once per run: a recreated `checkout_e2e` database (embedded, or on
 * DATABASE_URL's server), the Stripe emulator and a production build in its
 * own folder. The app servers are the workers' (the `workerApp` fixture in
 * e2e/fixtures.ts: one `next start` per worker, each with an API key of its
 * own and so an emulator account of its own). Returns the teardown.
 */
export default async function globalSetup() {
  const env = parseEnv({
    ...testEnvironment(process.env, "e2e"),
    STRIPE_SECRET_KEY: "sk_test_emulator",
    STRIPE_API_BASE: E2E.emulatorUrl,
    // The catalogue is seeded in it, and the workers' servers price in it.
    SHOP_CURRENCY: E2E.currency,
  });
  const stack = await startStack({
    env,
    appPort: E2E.appPort,
    instances: 0,
    database: E2E.database,
    recreateDatabase: true,
    startEmulator: true,
    generateSessionSecret: true,
    build: process.env.TEST_REUSE_BUILD !== "1",
    distDir: E2E.distDir,
    appEnv: {
      LAB_NAIVE_ENDPOINT: "1",
      MAINTENANCE_INTERVAL_MS: "0",
      OPS_TOKEN: TEST_OPS_TOKEN,
      // The Payment Element offers SEPA Debit, iDEAL and Bancontact tabs (EUR only); card journeys stay on its Card tab.
      PAYMENT_METHOD_TYPES: "card,sepa_debit,ideal,bancontact",
    },
    log: (line) => console.log(`[e2e] ${line}`),
    appLog: process.env.E2E_APP_LOG ? (line) => console.log(`[app] ${line}`) : undefined,
  });
  // For the workers' servers, and specs that run one of their own (workers inherit process.env).
  process.env[STACK_APP_ENV] = JSON.stringify(stack.appEnv);
  return () => stack.stop();
}
