import type { TestProject } from "vitest/node";
import { seedCatalogue } from "../lib/catalog/seed";
import { createPrismaClient } from "../lib/db";
import { migrate } from "../lib/db/migrate";
import { provisionDatabase } from "../lib/db/provision";
import { parseEnv } from "../lib/env";
import { buildApp } from "../scripts/lib/stack";
import { TEST_DIST_DIR } from "./constants";

/**
 * One real PostgreSQL for the whole Vitest run: the embedded server by default
 * (or DATABASE_URL's server), with a database of its own, recreated, migrated
 * and seeded. Tests read its URL with `inject("databaseUrl")`.
 */
export const TEST_DATABASE = "checkout_vitest";

export default async function setup(project: TestProject) {
  const env = parseEnv();
  // Tests that go through HTTP run the production build (see tests/app-server.ts).
  if (process.env.TEST_REUSE_BUILD !== "1") buildApp(TEST_DIST_DIR, (line) => console.log(line));
  const database = await provisionDatabase(env, { database: TEST_DATABASE, recreate: true });
  await migrate(database.url);
  const prisma = createPrismaClient(database.url);
  await seedCatalogue(prisma);
  await prisma.$disconnect();
  project.provide("databaseUrl", database.url);
  project.provide("adminDatabaseUrl", new URL("/postgres", database.url).toString());
  return () => database.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    /** The same server's maintenance database, for tests that create databases of their own. */
    adminDatabaseUrl: string;
  }
}
