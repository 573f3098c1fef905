import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { seedCatalogue } from "@/lib/catalogue/seed";
import { createPrismaClient } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { provisionDatabase, type ProvisionedDatabase } from "@/lib/db/provision";
import { ConfigError, EMULATOR_WEBHOOK_SECRET, type Env, type ShopCurrency } from "@/lib/env";
import { assertPortFree, portTaken } from "@/lib/ports";
import { SECRET_ADVICE } from "@/lib/security/secret-strength";
import { establishShopIdentity } from "@/lib/shop-identity";
import { startStripeEmulator, StateFileError, type StripeEmulator } from "@checkout/stripe-emulator";
import { startApp, type AppProcess } from "./app-process";

/** Where the app receives Stripe's events (app/api/webhooks/stripe/route.ts). */
export const WEBHOOK_PATH = "/api/webhooks/stripe";

/**
 * Everything the app needs, started in order and stopped in reverse: the
 * database (embedded unless DATABASE_URL), migrations and the catalogue, the
 * Stripe emulator (when the configuration points at it), a production build,
 * and the server (`next dev` for `npm run dev`). `npm run demo`, `npm run dev`,
 * the benchmarks and the end-to-end tests share it; `npm start` never does
 * (scripts/start.ts runs the built app against configured services only).
 */
export interface StackOptions {
  env: Env;
  appPort: number;
  /** Database name; default: DATABASE_URL's own, or `checkout` on the embedded server. */
  database?: string;
  recreateDatabase?: boolean;
  /** Start the emulator in this process when the configuration points at a local one. */
  startEmulator: boolean;
  /** The started emulator delivers its webhook events to the (first) app, signed with STRIPE_WEBHOOK_SECRET. */
  emulatorWebhooks?: boolean;
  /** The started emulator keeps its records (ledger, events, tokens) in this file across restarts, as the database keeps its orders. */
  emulatorStateFile?: string;
  build: boolean;
  distDir?: string;
  appEnv?: Record<string, string>;
  /** The address the app processes reach the database at, given its own (the bench counts round trips through a relay). */
  appDatabaseUrl?: (url: string) => Promise<string>;
  /** App processes on consecutive ports from appPort, sharing the database and the emulator. */
  instances?: number;
  /**
   * Without SESSION_SECRET, invent one and keep it in DATA_DIR (the demo and
   * test stacks); likewise the webhook signing secret the started emulator
   * and the app share. Otherwise start-up is refused: behind a load
   * balancer, hosts with secrets of their own would refuse each other's cookies.
   */
  generateSessionSecret?: boolean;
  /** `next dev` with hot reload instead of `next start` (implies no build). */
  dev?: boolean;
  /** The address the app processes listen on (HOST); unset, every interface. */
  hostname?: string;
  /** The npm command, for start-up messages (`npm run demo`). */
  command?: string;
  log: (line: string) => void;
  appLog?: (line: string) => void;
}

export interface Stack {
  database: ProvisionedDatabase;
  emulator: StripeEmulator | null;
  /** The first instance. */
  app: AppProcess;
  apps: AppProcess[];
  /** The variables the app processes run with. */
  appEnv: Record<string, string>;
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const { env, log } = options;
  if (!env.SESSION_SECRET && !options.generateSessionSecret) throw new ConfigError(SESSION_SECRET_REQUIRED);
  const instances = options.instances ?? 1;
  // A taken port is one line naming its variable, before anything starts.
  for (let i = 0; i < instances; i++) await assertPortFree(options.appPort + i, "PORT");
  if (options.startEmulator && env.usesStripeEmulator)
    await assertPortFree(Number(new URL(env.stripeApiBase!).port), "STRIPE_EMULATOR_PORT");
  const cleanups: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => log(`cleanup failed: ${err}`));
  };
  try {
    const { database, applied, seeded } = await provisionStackDatabase(env, {
      database: options.database,
      recreate: options.recreateDatabase,
    });
    cleanups.push(() => database.stop());
    log(`database   ${redact(database.url)}${database.embedded ? " (embedded)" : ""}`);
    log(`migrations ${applied.length} applied · catalogue ${seeded} products`);
    // The demo's and the test stacks' databases name themselves once; every instance then takes that name.
    const shopId = await establishShopIdentity(database.url, options.appEnv?.SHOP_ID ?? env.SHOP_ID, {
      mayName: Boolean(options.generateSessionSecret) || database.embedded,
    });
    log(`shop       ${shopId}`);

    let emulator: StripeEmulator | null = null;
    // The emulator's well-known secret is for tests that sign events themselves; the demo and dev stacks,
    // whose emulator delivers every event, make their own like the session secret.
    const webhookSecret =
      options.generateSessionSecret && options.emulatorWebhooks && env.STRIPE_WEBHOOK_SECRET === EMULATOR_WEBHOOK_SECRET
        ? kept(env.DATA_DIR, "webhook-secret", () => `whsec_${randomBytes(32).toString("hex")}`)
        : env.STRIPE_WEBHOOK_SECRET;
    if (options.startEmulator && env.usesStripeEmulator) {
      const port = Number(new URL(env.stripeApiBase!).port);
      const webhook = options.emulatorWebhooks
        ? { url: `http://localhost:${options.appPort}${WEBHOOK_PATH}`, secret: webhookSecret }
        : undefined;
      const stateFile = options.emulatorStateFile;
      emulator = await startStripeEmulator({ port, webhook, stateFile }).catch((err: NodeJS.ErrnoException) => {
        if (err instanceof StateFileError)
          throw new ConfigError(`DATA_DIR: ${err.message}; move it away to start the emulator with an empty ledger.`);
        if (err.code !== "EADDRINUSE") throw err;
        throw new ConfigError(portTaken(port, "STRIPE_EMULATOR_PORT"));
      });
      cleanups.push(() => emulator!.close());
      log(`stripe     emulator on ${emulator.url}${webhook ? ` · webhooks → ${webhook.url}` : ""}`);
      if (stateFile) log(`           its ledger kept in ${stateFile}`);
    } else {
      log(`stripe     ${env.stripeApiBase ?? "api.stripe.com (test mode)"}`);
    }

    if (options.build && !options.dev) buildApp(options.distDir, log);

    const appEnv: Record<string, string> = {
      DATABASE_URL: options.appDatabaseUrl ? await options.appDatabaseUrl(database.url) : database.url,
      STRIPE_SECRET_KEY: env.STRIPE_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      SHOP_ID: shopId,
      // The currency the catalogue was just seeded in.
      SHOP_CURRENCY: env.SHOP_CURRENCY,
      SESSION_SECRET: env.SESSION_SECRET ?? kept(env.DATA_DIR, "session-secret", () => randomBytes(32).toString("hex")),
      // One person and their browser (or a test run) from one address: the abuse limits, raised (lib/abuse/limits.ts).
      RATE_LIMIT_SCALE: process.env.RATE_LIMIT_SCALE || "1000",
      ...(env.stripeApiBase ? { STRIPE_API_BASE: env.stripeApiBase } : {}),
      ...(options.distDir ? { NEXT_DIST_DIR: options.distDir } : {}),
      ...options.appEnv,
    };
    const apps: AppProcess[] = [];
    for (let i = 0; i < instances; i++) {
      const port = options.appPort + i;
      const prefix = instances > 1 ? `[${port}] ` : "";
      const app = await startApp({
        port,
        env: appEnv,
        dev: options.dev,
        hostname: options.hostname,
        // `next dev` compiles each route on its first request.
        readyTimeoutMs: options.dev ? 180_000 : undefined,
        log: options.appLog && ((line) => options.appLog!(prefix + line)),
      });
      cleanups.push(() => app.stop());
      apps.push(app);
    }
    return { database, emulator, app: apps[0]!, apps, appEnv, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * A stack's database: provisioned (the embedded server unless DATABASE_URL;
 * lib/db/provision.ts), migrated and seeded. The Vitest run's database is
 * one too (tests/global-setup.ts).
 */
export async function provisionStackDatabase(
  env: Env,
  options: { database?: string; recreate?: boolean },
): Promise<{ database: ProvisionedDatabase; applied: string[]; seeded: number }> {
  const database = await provisionDatabase(env, options);
  try {
    return { database, ...(await migrateAndSeed(database.url, env.SHOP_CURRENCY)) };
  } catch (err) {
    await database.stop();
    throw err;
  }
}

/**
 * Migrations and the catalogue, priced in the shop's currency, on a database
 * that exists: what every stack's database gets, the soak's too.
 */
export async function migrateAndSeed(
  url: string,
  currency: ShopCurrency,
): Promise<{ applied: string[]; seeded: number }> {
  const { applied } = await migrate(url);
  const prisma = createPrismaClient(url);
  const { products: seeded } = await seedCatalogue(prisma, currency).finally(() => prisma.$disconnect());
  return { applied, seeded };
}

export function buildApp(distDir: string | undefined, log: (line: string) => void): void {
  log("building   next build (production)…");
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const result = spawnSync(process.execPath, [nextBin, "build"], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...(distDir ? { NEXT_DIST_DIR: distDir } : {}) },
  });
  if (result.status !== 0) throw new Error("next build failed (see its output above)");
}

export const SESSION_SECRET_REQUIRED = `SESSION_SECRET: required without a generated one: ${SECRET_ADVICE}`;

/** A secret of the demo's: generated once, kept beside the data so sessions and webhooks survive restarts. */
export function kept(dataDir: string, name: string, generate: () => string): string {
  const file = path.resolve(dataDir, name);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = generate();
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "****";
  return u.toString();
}
