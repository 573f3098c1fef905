import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "@/lib/env";
import { embeddedDatabaseOf, PORT_PLAN } from "@/scripts/lib/port-plan";
import { startStack, type Stack } from "@/scripts/lib/stack";
import { startPgRelay, type PgRelay } from "./pg-relay";

/**
 * The benchmark's own stack, beside the demo and the tests
 * (scripts/lib/port-plan.ts): an embedded PostgreSQL in `<DATA_DIR>/bench` (or
 * DATABASE_URL's server) with a `checkout_bench` database recreated on every
 * run, the Stripe emulator in this process, and the production build in
 * `tools/bench/.next` served by `next start`, with the lab's naive route enabled.
 */
export const BENCH_DIST_DIR = "tools/bench/.next";
// BENCH_APP_PORT, BENCH_EMULATOR_PORT, BENCH_DATABASE: for runs beside another bench on one machine.
const APP_PORT = Number(process.env.BENCH_APP_PORT || PORT_PLAN.bench.app);
const EMULATOR_PORT = Number(process.env.BENCH_EMULATOR_PORT || PORT_PLAN.bench.emulator);
const DATABASE = process.env.BENCH_DATABASE || "checkout_bench";

/**
 * The storm holds an owner in a 40 s emulated charge: the SDK's per-attempt
 * timeout must outlast it, and the in-progress TTL must outlast the SDK's
 * worst case (3 attempts × 50 s + 2 × 5 s backoff = 160 s), as the app's
 * configuration check demands.
 */
export const BENCH_METRICS_TOKEN = randomBytes(32).toString("hex");
const APP_SETTINGS = {
  STRIPE_TIMEOUT_MS: "90000",
  IDEMPOTENCY_IN_PROGRESS_TTL_MS: "300000",
  LAB_NAIVE_ENDPOINT: "1",
  // The phase histogram (checkout_phase_seconds) is read from /api/metrics, closed in production without a token.
  METRICS_TOKEN: BENCH_METRICS_TOKEN,
  // The request paths are measured alone: no in-process reconciler or cleanup timer.
  MAINTENANCE_INTERVAL_MS: "0",
};

export interface BenchStack {
  appUrl: string;
  appPid: number;
  /** The embedded server's postmaster; null for DATABASE_URL's server. */
  postmasterPid: number | null;
  emulatorUrl: string;
  databaseUrl: string;
  embedded: boolean;
  /** Round trips the app sent to PostgreSQL so far, counted on the wire by a relay in front of it. */
  appRoundTrips(): number;
  stop(): Promise<void>;
}

export async function startBenchStack(options: {
  reuseBuild: boolean;
  log: (line: string) => void;
}): Promise<BenchStack> {
  const env = parseEnv({
    ...process.env,
    ...embeddedDatabaseOf("bench"),
    // Always the local emulator: a benchmark never reaches real Stripe.
    STRIPE_SECRET_KEY: "sk_test_emulator",
    STRIPE_API_BASE: undefined,
    STRIPE_EMULATOR_PORT: String(EMULATOR_PORT),
    ...APP_SETTINGS,
  });
  const build = !(options.reuseBuild && existsSync(path.join(BENCH_DIST_DIR, "BUILD_ID")));
  let relay: PgRelay | undefined;
  const stack: Stack = await startStack({
    env,
    appPort: APP_PORT,
    database: DATABASE,
    recreateDatabase: true,
    startEmulator: true,
    generateSessionSecret: true,
    build,
    distDir: BENCH_DIST_DIR,
    appEnv: APP_SETTINGS,
    appDatabaseUrl: async (url) => {
      relay = await startPgRelay(url);
      return relay.url;
    },
    log: options.log,
  });
  const pidFile = path.join(env.DATA_DIR, "postgres", "postmaster.pid");
  return {
    appUrl: `http://127.0.0.1:${APP_PORT}`,
    appPid: stack.app.pid,
    postmasterPid:
      stack.database.embedded && existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").split("\n")[0]) : null,
    emulatorUrl: stack.emulator!.url,
    databaseUrl: stack.database.url,
    embedded: stack.database.embedded,
    appRoundTrips: () => relay?.roundTrips() ?? 0,
    stop: async () => {
      await stack.stop();
      await relay?.close();
    },
  };
}
