import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import {
  ADVISORY_LOCK_ID,
  EARLIER_CHECKSUMS_FILE,
  migrate,
  MigrationError,
  readMigrations,
  sha256,
  type SqlConnection,
} from "./migrate";
import { withDatabase } from "./provision";
import { scratchDir } from "@/tests/helpers/scratch";

const admin = inject("adminDatabaseUrl");
const created: string[] = [];

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** A fresh, empty database for one test. */
async function freshDatabase(): Promise<string> {
  const name = `migrate_${randomBytes(4).toString("hex")}`;
  await query(admin, `create database ${name}`);
  created.push(name);
  return withDatabase(admin, name);
}

/** A migrations folder: each migration's SQL, and the earlier checksums of those that list any. */
async function migrationsDir(files: Record<string, string>, earlier: Record<string, string> = {}): Promise<string> {
  const dir = await scratchDir("migrations-");
  for (const [name, sql] of Object.entries(files)) {
    await mkdir(path.join(dir, name));
    await writeFile(path.join(dir, name, "migration.sql"), sql);
    if (earlier[name] !== undefined) await writeFile(path.join(dir, name, EARLIER_CHECKSUMS_FILE), earlier[name]);
  }
  return dir;
}

/** The statements of a migration, without its `--` comments. */
const statements = (sql: string) =>
  sql
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("--"))
    .join("\n");

/**
 * One client connection as PgBouncer in transaction mode serves it: every
 * transaction, and every statement outside one, runs on another server
 * connection. The server connections stay open, as a pooler's do.
 */
function transactionPooler(url: string) {
  const servers: pg.Client[] = [];
  let pinned: pg.Client | null = null;
  const anotherServer = async () => {
    const server = new pg.Client({ connectionString: url });
    await server.connect();
    servers.push(server);
    return server;
  };
  const connection: SqlConnection = {
    async query(text, values) {
      const server = pinned ?? (await anotherServer());
      if (/^\s*begin\b/i.test(text)) pinned = server;
      try {
        return await server.query(text, values);
      } finally {
        if (/^\s*(commit|rollback)\b/i.test(text)) pinned = null;
      }
    },
    end: async () => undefined, // the pooler keeps its server connections
  };
  return { servers, open: async () => connection, close: () => Promise.all(servers.map((s) => s.end())) };
}

const heldMigrationLocks = async (url: string) =>
  (
    await query<{ n: string }>(
      url,
      `select count(*)::text as n from pg_locks where locktype = 'advisory' and objid = ${ADVISORY_LOCK_ID}`,
    )
  )[0]?.n;

afterAll(async () => {
  for (const name of created) await query(admin, `drop database if exists ${name} with (force)`);
});

describe("the migration runner", () => {
  it("applies the project's migrations to an empty database, then finds nothing to do", async () => {
    const url = await freshDatabase();
    const first = await migrate(url);
    expect(first.applied.length).toBeGreaterThan(0);
    const second = await migrate(url);
    expect(second).toEqual({ applied: [], alreadyApplied: first.applied });
    const tables = await query<{ n: string }>(
      url,
      "select count(*)::text as n from pg_tables where tablename = 'idempotency_keys'",
    );
    expect(tables[0]?.n).toBe("1");
  });

  it("applies pending migrations in name order and records their checksums", async () => {
    const url = await freshDatabase();
    const dir = await migrationsDir({
      "002_second": "alter table a add column b int;",
      "001_first": "create table a (id int);",
    });
    expect((await migrate(url, dir)).applied).toEqual(["001_first", "002_second"]);
    const rows = await query<{ migration_name: string; checksum: string }>(
      url,
      `select migration_name, checksum from "_prisma_migrations" order by migration_name`,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(["001_first", "002_second"]);
    expect(rows[0]?.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses a migration that changed after it was applied, naming it", async () => {
    const url = await freshDatabase();
    await migrate(url, await migrationsDir({ "001_first": "create table a (id int);" }));
    const edited = await migrationsDir({ "001_first": "create table a (id bigint);" });
    await expect(migrate(url, edited)).rejects.toThrow(MigrationError);
    await expect(migrate(url, edited)).rejects.toThrow(/001_first was changed after it was applied/);
  });

  it("takes a migration whose comments were corrected by the checksum it had, and records the file's", async () => {
    const url = await freshDatabase();
    const original = "-- a comment that was wrong\ncreate table a (id int);";
    const corrected = "-- the comment as it is now\ncreate table a (id int);";
    await migrate(url, await migrationsDir({ "001_first": original }));
    const dir = await migrationsDir({ "001_first": corrected }, { "001_first": `${sha256(original)} 0123abc\n` });
    expect(await migrate(url, dir)).toEqual({ applied: [], alreadyApplied: ["001_first"] });
    const rows = await query<{ checksum: string }>(url, `select checksum from "_prisma_migrations"`);
    expect(rows.map((r) => r.checksum)).toEqual([sha256(corrected)]);
    // Recorded as it is now, it needs its earlier checksum no more.
    expect(await migrate(url, await migrationsDir({ "001_first": corrected }))).toEqual({
      applied: [],
      alreadyApplied: ["001_first"],
    });
  });

  it("lists as earlier checksums only files from the project's history with the same statements", async () => {
    const listed = (await readMigrations()).filter((m) => m.earlier.length > 0);
    expect(listed.map((m) => m.name)).toContain("20261201100000_webhook_inbox");
    for (const m of listed) {
      for (const { checksum, commit } of m.earlier) {
        // Needs the repository's history: a clone has it.
        const before = execFileSync("git", ["show", `${commit}:prisma/migrations/${m.name}/migration.sql`], {
          encoding: "utf8",
        });
        expect(sha256(before)).toBe(checksum);
        expect(before).not.toBe(m.sql);
        expect(statements(before)).toBe(statements(m.sql));
      }
    }
  });

  it("rolls back a failing migration completely and keeps the ones before it", async () => {
    const url = await freshDatabase();
    const dir = await migrationsDir({
      "001_ok": "create table a (id int);",
      "002_broken": "create table b (id int); select * from no_such_table;",
    });
    await expect(migrate(url, dir)).rejects.toThrow(/002_broken failed and was rolled back/);
    const tables = await query<{ tablename: string }>(
      url,
      "select tablename from pg_tables where schemaname = 'public' order by 1",
    );
    expect(tables.map((t) => t.tablename)).toEqual(["_prisma_migrations", "a"]);
  });

  it("is safe when several processes migrate the same database at once", async () => {
    const url = await freshDatabase();
    // Each migration fails if run twice (create table without "if not exists").
    const dir = await migrationsDir({
      "001_a": "create table a (id int); select pg_sleep(0.2);",
      "002_b": "create table b (id int);",
    });
    const results = await Promise.all([1, 2, 3, 4].map(() => migrate(url, dir)));
    expect(results.flatMap((r) => r.applied).sort()).toEqual(["001_a", "002_b"]);
    const rows = await query<{ n: string }>(url, `select count(*)::text as n from "_prisma_migrations"`);
    expect(rows[0]?.n).toBe("2");
  });

  it("holds its lock only inside transactions, so it works through a transaction pooler and leaves no lock behind", async () => {
    const url = await freshDatabase();
    const dir = await migrationsDir({ "001_a": "create table a (id int);", "002_b": "create table b (id int);" });
    const first = transactionPooler(url);
    const second = transactionPooler(url);
    try {
      expect((await migrate(url, dir, first.open)).applied).toEqual(["001_a", "002_b"]);
      expect(first.servers.length).toBeGreaterThan(2); // it really ran on several server connections
      expect(await heldMigrationLocks(url)).toBe("0");
      // The next deploy's runner, through the pooler too, is not stuck behind a lock nobody can release.
      const next = migrate(url, dir, second.open);
      const stuck = new Promise((resolve) =>
        setTimeout(() => resolve("still waiting for the lock after 10 s"), 10_000).unref(),
      );
      expect(await Promise.race([next, stuck])).toEqual({ applied: [], alreadyApplied: ["001_a", "002_b"] });
    } finally {
      await first.close();
      await second.close();
    }
  });
});
