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
const ADVISORY_LOCK_ID = 72_707_369;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

export async function migrate(connectionString: string, dir = MIGRATIONS_DIR): Promise<MigrateResult> {
  const migrations = await readMigrations(dir);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    // Session-level lock: a second process starting at the same time waits
    // here, then finds everything applied.
    await client.query("select pg_advisory_lock($1)", [ADVISORY_LOCK_ID]);
    await client.query(`create table if not exists "_prisma_migrations" (
      "id" varchar(36) primary key,
      "checksum" varchar(64) not null,
      "finished_at" timestamptz,
      "migration_name" varchar(255) not null,
      "logs" text,
      "rolled_back_at" timestamptz,
      "started_at" timestamptz not null default now(),
      "applied_steps_count" integer not null default 0)`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `select migration_name, checksum from "_prisma_migrations"
        where finished_at is not null and rolled_back_at is null`,
    );
    const done = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const result: MigrateResult = { applied: [], alreadyApplied: [] };
    for (const m of migrations) {
      const recorded = done.get(m.name);
      if (recorded !== undefined) {
        if (recorded !== m.checksum) {
          throw new MigrationError(
            `Migration ${m.name} was changed after it was applied (checksum ${recorded.slice(0, 12)}… in the database, ` +
              `${m.checksum.slice(0, 12)}… on disk). Never edit an applied migration: add a new one.`,
          );
        }
        result.alreadyApplied.push(m.name);
        continue;
      }
      await applyOne(client, m);
      result.applied.push(m.name);
    }
    return result;
  } finally {
    await client.query("select pg_advisory_unlock($1)", [ADVISORY_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}

async function applyOne(client: pg.Client, m: Migration): Promise<void> {
  try {
    await client.query("begin");
    await client.query(m.sql);
    await client.query(
      `insert into "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
       values ($1, $2, $3, now(), 1)`,
      [randomUUID(), m.checksum, m.name],
    );
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw new MigrationError(`Migration ${m.name} failed and was rolled back: ${(err as Error).message}`);
  }
}
