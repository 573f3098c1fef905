import "server-only";
import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
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

/** Each client's pg pool, for `queryRows`. */
const pools = new WeakMap<PrismaClient, pg.Pool>();

/** A client on its own pool of POOL_SIZE connections, or on `pool` (the bench counts statements on one). */
export function createPrismaClient(connection: string | pg.Pool): PrismaClient {
  const owned = typeof connection === "string";
  const pool = owned ? new pg.Pool({ connectionString: connection, max: POOL_SIZE }) : connection;
  // Prisma's adapter listens for idle clients' errors once it connects; until then a lost idle connection must not crash the process (the pool drops it).
  if (owned) pool.on("error", () => undefined);
  const client = new PrismaClient({
    adapter: new PrismaPg(pool, { statementNameGenerator: statementName, disposeExternalPool: owned }),
  });
  pools.set(client, pool);
  return client;
}

/**
 * One named statement sent straight to the client's pool, without Prisma's
 * query machinery: for the hottest statement, the claim, which every
 * duplicate costs (Prisma's raw-query path spends about 0.08 ms more CPU per
 * call; docs/performance.md). Same pool, same connections, same statement
 * names as Prisma's own queries.
 */
export async function queryRows<T extends pg.QueryResultRow>(
  client: PrismaClient,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const pool = pools.get(client);
  if (!pool) throw new Error("queryRows needs a client made by createPrismaClient");
  const result = await pool.query<T>({ name: statementName({ sql: text }), text, values });
  return result.rows;
}

export function db(): PrismaClient {
  if (!globalForPrisma.prisma) {
    const url = env().DATABASE_URL;
    if (!url)
      throw new Error("DATABASE_URL is not set: start the app with `npm start` or `npm run demo`, which provide it");
    globalForPrisma.prisma = createPrismaClient(url);
  }
  return globalForPrisma.prisma;
}
