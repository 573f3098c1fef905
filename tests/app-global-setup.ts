import type { TestProject } from "vitest/node";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { buildApp } from "@/scripts/lib/stack";
import { startStripeEmulator } from "@checkout/stripe-emulator";
import { freePort, testAppEnv } from "./app-env";
import { TEST_DIST_DIR } from "./constants";

/**
 * For the tiers that go through HTTP: the production build (once per run,
 * skipped with TEST_REUSE_BUILD=1), and for the `app` tier one Stripe emulator
 * and one `next start` per worker on the default configuration. Worker n's
 * server uses its own API key, so with the emulator's accounts per key the
 * files of one worker never see another worker's faults or charges. Files
 * that test a configuration of their own start the server of that
 * configuration (tests/helpers/harness.ts). Lists after tests/global-setup.ts,
 * whose database it uses.
 */
const shared = globalThis as { __checkoutTestBuilt?: boolean };

export default async function setup(project: TestProject) {
  if (process.env.TEST_REUSE_BUILD !== "1" && !shared.__checkoutTestBuilt) {
    buildApp(TEST_DIST_DIR, (line) => console.log(line));
    shared.__checkoutTestBuilt = true;
  }
  if (project.name !== "app") return;
  const databaseUrl = project.getProvidedContext().databaseUrl;
  const emulator = await startStripeEmulator({ port: 0 });
  const apps: AppProcess[] = [];
  const workerApps: Array<{ url: string; env: Record<string, string> }> = [];
  const stop = async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await emulator.close();
  };
  try {
    const count = project.config.maxWorkers;
    const started = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const env = testAppEnv({
          databaseUrl,
          stripeApiBase: emulator.url,
          stripeKey: `sk_test_vitest_worker_${i + 1}`,
        });
        const port = await freePort();
        const app = await startApp({ port, env });
        apps.push(app);
        return { url: app.url, env };
      }),
    );
    workerApps.push(...started);
  } catch (error) {
    await stop();
    throw error;
  }
  project.provide("workerApps", workerApps);
  return stop;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** One app server per worker of the `app` tier, on the default configuration: index VITEST_POOL_ID - 1. */
    workerApps: Array<{ url: string; env: Record<string, string> }>;
  }
}
