import pg from "pg";
import type { TestProject } from "vitest/node";
import { parseEnv } from "@/lib/env";
import { isAlive } from "@/lib/is-alive";
import { provisionStackDatabase } from "@/scripts/lib/stack";
import { testEnvironment } from "./constants";

/**
 * One real PostgreSQL for the whole Vitest run: the embedded server by default
 * (or DATABASE_URL's server), with a database of its own, recreated, migrated
 * and seeded as every stack's is (scripts/lib/stack.ts). Tests read its URL with `inject("databaseUrl")`. Every project
 * (tier) lists this file; the first to start provisions the database, the
 * last to finish drops it (projects share the main process, so the count
 * lives on globalThis).
 */
/** One database per run, so runs side by side (or beside a demo) never share state. */
export const TEST_DATABASE = `checkout_vitest_${process.pid}`;

interface SharedDatabase {
  ready: Promise<{ url: string; admin: string; stop: () => Promise<void> }>;
  users: number;
}
const shared = globalThis as { __checkoutTestDatabase?: SharedDatabase };

export default async function setup(project: TestProject) {
  const entry = (shared.__checkoutTestDatabase ??= { ready: provision(), users: 0 });
  entry.users += 1;
  const { url, admin, stop } = await entry.ready;
  project.provide("databaseUrl", url);
  project.provide("adminDatabaseUrl", admin);
  return async () => {
    entry.users -= 1;
    if (entry.users > 0) return;
    shared.__checkoutTestDatabase = undefined;
    await dropDatabase(admin, TEST_DATABASE).catch(() => undefined);
    await stop();
  };
}

async function provision() {
  const env = parseEnv(testEnvironment());
  const { database } = await provisionStackDatabase(env, { database: TEST_DATABASE, recreate: true });
  const admin = new URL("/postgres", database.url).toString();
  await dropDatabasesOfDeadRuns(admin);
  return { url: database.url, admin, stop: () => database.stop() };
}

async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/** A run that was killed could not drop its databases: do it for it. */
async function dropDatabasesOfDeadRuns(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  const { rows } = await client.query<{ datname: string }>(
    "select datname from pg_database where datname ~ '^checkout_vitest_[0-9]+(_[a-z]+)?$'",
  );
  await client.end();
  for (const { datname } of rows) {
    const pid = Number(datname.split("_")[2]); // checkout_vitest_<pid>[_<label>] (tests/helpers/own-database.ts)
    if (!isAlive(pid)) await dropDatabase(adminUrl, datname).catch(() => undefined);
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    /** The same server's maintenance database, for tests that create databases of their own. */
    adminDatabaseUrl: string;
  }
}
