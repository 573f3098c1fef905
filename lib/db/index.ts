import "server-only";
import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import type { Database } from "@checkout/idempotency";
import { PrismaClient } from "../generated/prisma/client";
import { env } from "../env";
import { behindTransactionPooler } from "./pooler";

/**
 * The app's one Prisma client. Kept on globalThis so Next's dev reloads do not
 * open a new pool per edit (Epic Stack / t3 pattern).
 */
const globalForPrisma = globalThis as unknown as {
  prisma?: PrismaClient;
  prismaPools?: WeakMap<PrismaClient, pg.Pool>;
};

/** The pool's defaults (DATABASE_POOL_SIZE, DATABASE_CONNECT_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS). */
export const POOL_SIZE = 10;
export const CONNECT_TIMEOUT_MS = 5_000;
export const STATEMENT_TIMEOUT_MS = 15_000;

export interface PoolOptions {
  size?: number;
  /** A request waits at most this long for a connection, new or pooled, then fails (503) instead of queueing forever. */
  connectTimeoutMs?: number;
  /** PostgreSQL cancels any one statement running longer, so a stuck query cannot hold a connection for good. */
  statementTimeoutMs?: number;
}

/**
 * Names each statement after its text, so every pooled connection parses and
 * plans it once and then only binds parameters (`npm run bench`: the claim
 * engine's throughput rose by half). Not behind a transaction pooler
 * (`pgbouncer=true`, lib/db/pooler.ts), where UnnamedStatementsClient drops
 * every name.
 */
export function statementName(query: { sql: string }): string {
  return `s_${createHash("sha1").update(query.sql).digest("base64url")}`;
}

/**
 * A pg client that sends every statement unnamed, whoever names it: Prisma's
 * adapter, `queryRows`, and rate-limiter-flexible, which names its own. A
 * pooler in transaction mode gives each transaction another server
 * connection: a statement prepared on one is missing on the next (26000), or
 * is already there from another client (42P05).
 */
class UnnamedStatementsClient extends pg.Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- forwards each of pg's overloads unchanged
  override query(config: unknown, ...rest: unknown[]): any {
    const plain = typeof config === "object" && config !== null && !("submit" in config) && "name" in config;
    const unnamed = plain ? { ...config, name: undefined } : config;
    return (super.query as (...args: unknown[]) => unknown)(unnamed, ...rest);
  }
}

/** Each client's pg pool, for `queryRows`. */
// On globalThis with the client: Next bundles this module more than once, and the copy that made
// the client (the maintenance loop's, a route's) is not always the one that asks for its pool.
const pools = (globalForPrisma.prismaPools ??= new WeakMap<PrismaClient, pg.Pool>());

/**
 * A client on its own pool (POOL_SIZE connections unless told), or on `pool`
 * (the bench counts statements on one). With `pgbouncer=true` in the URL its
 * statements go unnamed and the statement timeout is the server's.
 */
export function createPrismaClient(connection: string | pg.Pool, options: PoolOptions = {}): PrismaClient {
  const owned = typeof connection === "string";
  const pooled = owned && behindTransactionPooler(connection);
  const pool = owned
    ? new pg.Pool({
        connectionString: connection,
        max: options.size ?? POOL_SIZE,
        connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        ...(pooled
          ? { Client: UnnamedStatementsClient }
          : { statement_timeout: options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS }),
      })
    : connection;
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

/** The idempotency engine's database: the client's own pool, statements named as `queryRows` names them. */
export function engineDatabase(client: PrismaClient): Database {
  return { query: (text, values) => queryRows(client, text, [...values]) };
}

/** The pg pool under a client made by createPrismaClient (the rate limiter counts on the same connections). */
export function poolOf(client: PrismaClient): pg.Pool {
  const pool = pools.get(client);
  if (!pool) throw new Error("poolOf needs a client made by createPrismaClient");
  return pool;
}

export function db(): PrismaClient {
  if (!globalForPrisma.prisma) {
    const config = env();
    if (!config.DATABASE_URL)
      throw new Error("DATABASE_URL is not set: start the app with `npm start` or `npm run demo`, which provide it");
    globalForPrisma.prisma = createPrismaClient(config.DATABASE_URL, {
      size: config.DATABASE_POOL_SIZE,
      connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    });
  }
  return globalForPrisma.prisma;
}
