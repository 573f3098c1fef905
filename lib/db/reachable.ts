import pg from "pg";
import { ConfigError } from "../env";

/**
 * Runs `fn` on a fresh connection to `url`. A server that does not answer is
 * one line naming DATABASE_URL (what to change), not a driver's stack trace.
 */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    const u = new URL(url);
    throw new ConfigError(
      `DATABASE_URL: PostgreSQL at ${u.hostname}:${u.port || 5432}${u.pathname} does not answer (${firstLine(err)}); start it, or point DATABASE_URL at one that runs`,
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function assertReachable(url: string): Promise<void> {
  await withClient(url, (client) => client.query("select 1"));
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message || err.name : String(err);
  return (message.split("\n")[0] ?? "").trim() || "no answer";
}
