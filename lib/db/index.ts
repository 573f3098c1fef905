import "server-only";
import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import type pg from "pg";
import { PrismaClient } from "../generated/prisma/client";
import { env } from "../env";

/**
 * The app's one Prisma client. Kept on globalThis so Next's dev reloads do not
 * open a new pool per edit (Epic Stack / t3 pattern).
 */
const globalForPrisma = globalThis as unknown as { prisma?: PrismaClient };

export const POOL_SIZE = 10;

/**
 * Names each statement after its text, so every pooled connection parses and
 * plans it once and then only binds parameters (`npm run bench`: the claim
 * engine's throughput rose by half). Behind PgBouncer this needs its
 * protocol-level prepared statements (1.21+, `max_prepared_statements`).
 */
export function statementName(query: { sql: string }): string {
  return `s_${createHash("sha1").update(query.sql).digest("base64url")}`;
}

/** A client on its own pool of POOL_SIZE connections, or on `pool` (the bench counts statements on one). */
export function createPrismaClient(connection: string | pg.Pool): PrismaClient {
  const pool = typeof connection === "string" ? { connectionString: connection, max: POOL_SIZE } : connection;
  return new PrismaClient({ adapter: new PrismaPg(pool, { statementNameGenerator: statementName }) });
}

export function db(): PrismaClient {
  if (!globalForPrisma.prisma) {
    const url = env().DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set: start the app with `npm start` or `npm run demo`, which provide it");
    globalForPrisma.prisma = createPrismaClient(url);
  }
  return globalForPrisma.prisma;
}
