import type { Env } from "../env";
import { startEmbeddedPostgres } from "./embedded-postgres";
import { assertReachable, withClient } from "./reachable";

/**
 * Finds the PostgreSQL the scripts and tests use: DATABASE_URL when set,
 * otherwise the embedded server (started, or reused when already running).
 */
export interface ProvisionedDatabase {
  url: string;
  embedded: boolean;
  /** Stops the embedded server if this process started it. */
  stop(): Promise<void>;
  /** Restarts the embedded server, when this process started it (see EmbeddedServer.restart). */
  restart?(downMs: number): Promise<void>;
}

export const APP_DATABASE = "checkout";

export async function provisionDatabase(
  env: Pick<Env, "DATABASE_URL" | "DATA_DIR" | "EMBEDDED_PG_PORT">,
  options: { database?: string; recreate?: boolean } = {},
): Promise<ProvisionedDatabase> {
  if (env.DATABASE_URL) {
    const url = options.database ? withDatabase(env.DATABASE_URL, options.database) : env.DATABASE_URL;
    if (options.database) await ensureDatabase(env.DATABASE_URL, options.database, options.recreate);
    await assertReachable(url);
    return { url, embedded: false, stop: async () => undefined };
  }
  const server = await startEmbeddedPostgres({ dataDir: env.DATA_DIR, port: env.EMBEDDED_PG_PORT });
  const name = options.database ?? APP_DATABASE;
  await ensureDatabase(server.adminUrl, name, options.recreate);
  return {
    url: withDatabase(server.adminUrl, name),
    embedded: true,
    stop: () => server.stop(),
    ...(server.restart ? { restart: server.restart } : {}),
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function ensureDatabase(adminUrl: string, name: string, recreate = false): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Invalid database name: ${name}`);
  await withClient(adminUrl, async (client) => {
    if (recreate) await client.query(`drop database if exists "${name}" with (force)`);
    const { rowCount } = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (!rowCount) {
      // Two processes may race to create it; the loser's duplicate error is fine.
      await client.query(`create database "${name}"`).catch((err: { code?: string }) => {
        if (err.code !== "42P04" && err.code !== "23505") throw err;
      });
    }
  });
}
