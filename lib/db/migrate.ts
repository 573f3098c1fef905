import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

/**
 * Applies Prisma-format migrations (`prisma/migrations/<name>/migration.sql`)
 * without Prisma's migrate engine, which cannot be installed offline. It keeps
 * Prisma's own bookkeeping table, so `prisma migrate deploy` can take over
 * wherever the engine is available.
 */
export const MIGRATIONS_DIR = path.resolve(import.meta.dirname, "../../prisma/migrations");
/** Arbitrary constant shared by every runner: one migrator per database at a time. */
export const ADVISORY_LOCK_ID = 72_707_369;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
  /**
   * Checksums the file had before a correction to its comments alone, each
   * with the commit that held it, from its folder's `earlier-checksums` (one
   * `<sha256> <commit>` per line). A database that recorded one of them takes
   * the file's checksum; the statements are the same, which migrate.test.ts
   * checks against each commit.
   */
  earlier: Array<{ checksum: string; commit: string }>;
}

/** The name of the file, beside `migration.sql`, that lists a migration's earlier checksums. */
export const EARLIER_CHECKSUMS_FILE = "earlier-checksums";

export class MigrationError extends Error {
  override name = "MigrationError";
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      const earlier = await readFile(path.join(dir, name, EARLIER_CHECKSUMS_FILE), "utf8").catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return "";
        throw err;
      });
      return {
        name,
        sql,
        checksum: sha256(sql),
        earlier: earlier
          .split("\n")
          .filter((line) => line.trim() !== "")
          .map((line) => {
            const [checksum = "", commit = ""] = line.trim().split(/\s+/);
            return { checksum, commit };
          }),
      };
    }),
  );
}

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

/**
 * What the runner needs of a connection: pg.Client, or (in tests) one that
 * hands every transaction to another server connection, as PgBouncer does in
 * transaction mode.
 */
export interface SqlConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
}

async function connect(connectionString: string): Promise<SqlConnection> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  return client;
}

/**
 * Each step is one transaction that first takes a transaction-scoped advisory
 * lock (released by its own commit or rollback) and then decides under it.
 * A session-level lock would not survive a pooler in transaction mode: the
 * lock and its unlock can land on different server connections, leaving the
 * lock held forever by a connection nobody controls.
 */
export async function migrate(
  connectionString: string,
  dir = MIGRATIONS_DIR,
  open: (connectionString: string) => Promise<SqlConnection> = connect,
): Promise<MigrateResult> {
  const migrations = await readMigrations(dir);
  const client = await open(connectionString);
  try {
    await locked(client, () =>
      client.query(`create table if not exists "_prisma_migrations" (
        "id" varchar(36) primary key,
        "checksum" varchar(64) not null,
        "finished_at" timestamptz,
        "migration_name" varchar(255) not null,
        "logs" text,
        "rolled_back_at" timestamptz,
        "started_at" timestamptz not null default now(),
        "applied_steps_count" integer not null default 0)`),
    );
    const result: MigrateResult = { applied: [], alreadyApplied: [] };
    for (const m of migrations) {
      // Read under the lock: another runner may have applied it a moment ago.
      const applied = await locked(client, async () => {
        const { rows } = await client.query(
          `select checksum from "_prisma_migrations"
            where migration_name = $1 and finished_at is not null and rolled_back_at is null`,
          [m.name],
        );
        const recorded = (rows[0] as { checksum: string } | undefined)?.checksum;
        if (recorded === undefined) {
          await applyOne(client, m);
          return true;
        }
        if (m.earlier.some((e) => e.checksum === recorded)) {
          await client.query(
            `update "_prisma_migrations" set checksum = $2
              where migration_name = $1 and finished_at is not null and rolled_back_at is null`,
            [m.name, m.checksum],
          );
          return false;
        }
        if (recorded !== m.checksum) {
          throw new MigrationError(
            `Migration ${m.name} was changed after it was applied (checksum ${recorded.slice(0, 12)}… in the database, ` +
              `${m.checksum.slice(0, 12)}… on disk). Never edit an applied migration: add a new one.`,
          );
        }
        return false;
      });
      (applied ? result.applied : result.alreadyApplied).push(m.name);
    }
    return result;
  } finally {
    await client.end();
  }
}

/** Runs `work` in one transaction holding the migration lock; a second runner waits at the lock. */
async function locked<T>(client: SqlConnection, work: () => Promise<T>): Promise<T> {
  await client.query("begin");
  try {
    await client.query("select pg_advisory_xact_lock($1)", [ADVISORY_LOCK_ID]);
    const result = await work();
    await client.query("commit");
    return result;
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw err;
  }
}

/** Inside the locked transaction: the migration and its record commit together, or neither does. */
async function applyOne(client: SqlConnection, m: Migration): Promise<void> {
  try {
    await client.query(m.sql);
    await client.query(
      `insert into "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
       values ($1, $2, $3, now(), 1)`,
      [randomUUID(), m.checksum, m.name],
    );
  } catch (err) {
    throw new MigrationError(`Migration ${m.name} failed and was rolled back: ${(err as Error).message}`);
  }
}
