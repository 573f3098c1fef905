import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MIGRATION_SQL } from "@checkout/idempotency";

/**
 * The package's migration SQL describes the very tables prisma/migrations
 * makes: the same columns (types, nullability, defaults), the same indexes,
 * the same status type. The app keeps applying its own migrations; an
 * adopter applies the package's.
 */
const client = new pg.Client({ connectionString: inject("databaseUrl") });
const schema = `idem_schema_${randomUUID().replaceAll("-", "").slice(0, 12)}`;

beforeAll(async () => {
  await client.connect();
  await client.query(`create schema ${schema}; set search_path to ${schema}`);
  await client.query(MIGRATION_SQL);
  await client.query("set search_path to public");
});
afterAll(async () => {
  await client.query(`drop schema ${schema} cascade`);
  await client.end();
});

async function shape(from: string) {
  const columns = await client.query(
    `select column_name, data_type, udt_name, is_nullable, column_default, character_maximum_length, datetime_precision
       from information_schema.columns where table_schema = $1 and table_name = 'idempotency_keys'
      order by column_name`,
    [from],
  );
  const indexes = await client.query(
    `select indexname, replace(indexdef, $1 || '.', '') as def from pg_indexes
      where schemaname = $1 and tablename = 'idempotency_keys' order by indexname`,
    [from],
  );
  const labels = await client.query(
    `select e.enumlabel from pg_enum e join pg_type t on t.oid = e.enumtypid join pg_namespace n on n.oid = t.typnamespace
      where n.nspname = $1 and t.typname = 'idempotency_status' order by e.enumsortorder`,
    [from],
  );
  return { columns: columns.rows, indexes: indexes.rows, labels: labels.rows };
}

describe("the idempotency package's migration SQL", () => {
  it("makes the table prisma/migrations makes", async () => {
    const app = await shape("public");
    expect(app.columns.length).toBeGreaterThan(10);
    const ours = await shape(schema);
    // A default naming the enum type names it with the schema it lives in.
    const unqualified = (rows: typeof ours.columns) =>
      rows.map((row) => ({ ...row, column_default: row.column_default?.replace(`${schema}.`, "") ?? null }));
    expect(unqualified(ours.columns)).toEqual(unqualified(app.columns));
    expect(ours.indexes).toEqual(app.indexes);
    expect(ours.labels).toEqual(app.labels);
  });
});
