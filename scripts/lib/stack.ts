import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { seedCatalogue } from "@/lib/catalogue/seed";
import { createPrismaClient } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { provisionDatabase, type ProvisionedDatabase } from "@/lib/db/provision";
import { ConfigError, type Env } from "@/lib/env";
import { startStripeEmulator, type StripeEmulator } from "../stripe-emulator/server";
import { startApp, type AppProcess } from "./app-process";

/** Where the app receives Stripe's events (app/api/webhooks/stripe/route.ts). */
export const WEBHOOK_PATH = "/api/webhooks/stripe";

/**
 * Everything the app needs, started in order and stopped in reverse: the
 * database (embedded unless DATABASE_URL), migrations and the catalogue, the
 * Stripe emulator (when the configuration points at it), a production build,
 * and the server. `npm run demo`, `npm start` and the end-to-end tests share it.
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
  build: boolean;
  distDir?: string;
  appEnv?: Record<string, string>;
  /** App processes on consecutive ports from appPort, sharing the database and the emulator. */
  instances?: number;
  /**
   * Without SESSION_SECRET, invent one and keep it in DATA_DIR (the demo and
   * test stacks). Otherwise start-up is refused: behind a load balancer, hosts
   * with secrets of their own would refuse each other's cookies.
   */
  generateSessionSecret?: boolean;
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
  const cleanups: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => log(`cleanup failed: ${err}`));
  };
  try {
    const database = await provisionDatabase(env, { database: options.database, recreate: options.recreateDatabase });
    cleanups.push(() => database.stop());
    log(`database   ${redact(database.url)}${database.embedded ? " (embedded)" : ""}`);
    const { applied } = await migrate(database.url);
    const prisma = createPrismaClient(database.url);
    const seeded = await seedCatalogue(prisma).finally(() => prisma.$disconnect());
    log(`migrations ${applied.length} applied · catalogue ${seeded} products`);

    let emulator: StripeEmulator | null = null;
    if (options.startEmulator && env.usesStripeEmulator) {
      const port = Number(new URL(env.stripeApiBase!).port);
      const webhook = options.emulatorWebhooks
        ? { url: `http://localhost:${options.appPort}${WEBHOOK_PATH}`, secret: env.STRIPE_WEBHOOK_SECRET }
        : undefined;
      emulator = await startStripeEmulator({ port, webhook }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "EADDRINUSE") throw err;
        throw new ConfigError(
          `STRIPE_EMULATOR_PORT: port ${port} is already in use (another demo?); choose another port`,
        );
      });
      cleanups.push(() => emulator!.close());
      log(`stripe     emulator on ${emulator.url}${webhook ? ` · webhooks → ${webhook.url}` : ""}`);
    } else {
      log(`stripe     ${env.stripeApiBase ?? "api.stripe.com (test mode)"}`);
    }

    if (options.build) buildApp(options.distDir, log);

    const appEnv: Record<string, string> = {
      DATABASE_URL: database.url,
      STRIPE_SECRET_KEY: env.STRIPE_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: env.STRIPE_WEBHOOK_SECRET,
      SESSION_SECRET: env.SESSION_SECRET ?? sessionSecret(env.DATA_DIR),
      ...(env.stripeApiBase ? { STRIPE_API_BASE: env.stripeApiBase } : {}),
      ...(options.distDir ? { NEXT_DIST_DIR: options.distDir } : {}),
      ...options.appEnv,
    };
    const apps: AppProcess[] = [];
    for (let i = 0; i < (options.instances ?? 1); i++) {
      const port = options.appPort + i;
      const prefix = options.instances && options.instances > 1 ? `[${port}] ` : "";
      const app = await startApp({
        port,
        env: appEnv,
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

export function buildApp(distDir: string | undefined, log: (line: string) => void): void {
  log("building   next build (production)…");
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const result = spawnSync(process.execPath, [nextBin, "build"], {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...(distDir ? { NEXT_DIST_DIR: distDir } : {}) },
  });
  if (result.status !== 0) throw new Error("next build failed (see its output above)");
}

export const SESSION_SECRET_REQUIRED =
  "SESSION_SECRET: required by npm start: 32+ characters, the same on every instance (e.g. `openssl rand -hex 32`). " +
  "A secret each host invented for itself would make every other request 401 behind a load balancer; only npm run demo generates one.";

/** The demo's session secret: generated once, kept beside the data so sessions survive restarts. */
function sessionSecret(dataDir: string): string {
  const file = path.resolve(dataDir, "session-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(32).toString("hex");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "****";
  return u.toString();
}
