import { randomUUID } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { MIGRATION_SQL } from "./migration";
import { pgDatabase, type Database } from "./sql";

/**
 * A schema of its own on the test server, made by the package's migration
 * alone (no app tables), plus `marks`: a table for effects to leave a trace
 * in. Test-only.
 */
export async function testDatabase(): Promise<{ pool: pg.Pool; db: Database; schema: string; close(): Promise<void> }> {
  const schema = `idem_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const url = inject("databaseUrl");
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}; set search_path to ${schema}`);
    await admin.query(MIGRATION_SQL);
    await admin.query("create table marks (id uuid primary key)");
  } finally {
    await admin.end();
  }
  const pool = new pg.Pool({ connectionString: url, max: 10, options: `-c search_path=${schema}` });
  return {
    pool,
    db: pgDatabase(pool),
    schema,
    async close() {
      await pool.end();
      const drop = new pg.Client({ connectionString: url });
      await drop.connect();
      await drop.query(`drop schema ${schema} cascade`).finally(() => drop.end());
    },
  };
}
