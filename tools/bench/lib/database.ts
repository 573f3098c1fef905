import { createHash, randomUUID } from "node:crypto";
import pg from "pg";
import { CHECKOUT_ENDPOINT } from "@/lib/checkout/request";
import { createPrismaClient, POOL_SIZE, engineDatabase } from "@/lib/db";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { IdempotencyEngine } from "@checkout/idempotency";

/**
 * The bench's connections to the bench database: the app's own Prisma client
 * (lib/db/index.ts, so the claims measured here run with the app's adapter and pool
 * settings) and a raw pg pool of the same size for the baseline, bulk loads
 * and housekeeping. `countStatements` instead builds the Prisma client on a
 * pool that counts every statement sent to the server.
 */
export interface BenchDb {
  pool: pg.Pool;
  prisma: PrismaClient;
  engine: IdempotencyEngine;
  /** Statements sent through the counting pool (BEGIN and COMMIT included); 0 when not counting. */
  statements(): number;
  close(): Promise<void>;
}

export function openDb(url: string, options: { countStatements?: boolean } = {}): BenchDb {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  let statements = 0;
  if (options.countStatements) {
    pool.on("connect", (client) => {
      // Pool.query and Prisma's adapter both end in the checked-out client's query().
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      Object.assign(client, { query: (...args: unknown[]) => (statements++, query(...args)) });
    });
  }
  const prisma = createPrismaClient(options.countStatements ? pool : url);
  const engine = new IdempotencyEngine(engineDatabase(prisma), {
    inProgressTtlMs: 90_000,
    retentionHours: 24,
    attemptDeadlineMs: 1_800_000,
  });
  return {
    pool,
    prisma,
    engine,
    statements: () => statements,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

export interface KeyRow {
  subjectId: string;
  key: string;
  requestHash: string;
}

/** Fresh claims as checkout makes them: a customer, a UUID key, a SHA-256 of the body. */
export function keyRow(i: number): KeyRow {
  return {
    subjectId: uuidFrom(`customer-${i % 1000}`),
    key: randomUUID(),
    requestHash: createHash("sha256").update(`body-${i}`).digest("hex"),
  };
}

export function keyRows(count: number): KeyRow[] {
  return Array.from({ length: count }, (_, i) => keyRow(i));
}

export function claim(db: BenchDb, row: KeyRow) {
  return db.engine.claim({ subjectId: row.subjectId, endpoint: CHECKOUT_ENDPOINT, key: row.key }, row.requestHash);
}

/** The least a claim can be: one insert that lets the unique index decide. */
export function rawInsert(db: pg.Pool | pg.Client, row: KeyRow) {
  return db.query(
    `insert into idempotency_keys (subject_id, endpoint, key, request_hash, lock_token, locked_at)
     values ($1, $2, $3, $4, $5, now())
     on conflict (subject_id, endpoint, key) do nothing`,
    [row.subjectId, CHECKOUT_ENDPOINT, row.key, row.requestHash, randomUUID()],
  );
}

/** Empties the keys table (and the orders that point at keys). */
export async function resetKeys(db: BenchDb): Promise<void> {
  await db.pool.query("truncate idempotency_keys cascade");
  await db.pool.query("vacuum analyze idempotency_keys");
}

/**
 * Stores `count` finished records shaped like real ones (100 k customers,
 * a replayable 201), in one server-side statement per 250 k rows. Expired
 * records are what `db:cleanup` deletes; live ones only take space.
 */
export async function bulkLoadKeys(
  db: BenchDb,
  count: number,
  options: { expired: boolean; log: (line: string) => void },
): Promise<void> {
  const chunk = 250_000;
  const expiresAt = options.expired
    ? "now() - interval '1 hour' + g * interval '1 millisecond'"
    : "now() + interval '24 hours'";
  for (let from = 1; from <= count; from += chunk) {
    const to = Math.min(count, from + chunk - 1);
    await db.pool.query(
      `insert into idempotency_keys (subject_id, endpoint, key, request_hash, status, attempts, response_status,
                                     response_body, response_headers, created_at, completed_at, expires_at)
       select md5('customer-' || (g % 100000))::uuid::text, $1, gen_random_uuid(), encode(sha256(g::text::bytea), 'hex'),
              'completed', 1, 201,
              jsonb_build_object('orderId', gen_random_uuid(), 'status', 'paid', 'amountCents', 2500,
                                 'currency', 'usd', 'paymentIntentId', 'pi_' || md5(g::text)),
              '{"Location": "/orders/x"}'::jsonb, now() - interval '25 hours', now() - interval '25 hours', ${expiresAt}
         from generate_series($2::int, $3::int) g`,
      [CHECKOUT_ENDPOINT, from, to],
    );
    options.log(`stored ${to.toLocaleString("en")} / ${count.toLocaleString("en")} keys`);
  }
  await db.pool.query("vacuum analyze idempotency_keys");
}

/**
 * Flushes every dirty page before a probe, so that a probe never competes
 * with the write-back of a bulk load, and every probe starts from the same
 * point of the checkpoint cycle. Needs superuser or pg_checkpoint; without
 * them, returns false and the probe runs anyway.
 */
export async function checkpoint(db: BenchDb): Promise<boolean> {
  return db.pool.query("checkpoint").then(
    () => true,
    () => false,
  );
}

/** WAL written so far (pg_stat_wal): full-page images are what random-key index inserts cost after a checkpoint. */
export async function walStats(db: BenchDb): Promise<{ bytes: number; fullPageImages: number }> {
  const { rows } = await db.pool.query<{ bytes: string; fpi: string }>(
    "select wal_bytes::text as bytes, wal_fpi::text as fpi from pg_stat_wal",
  );
  return { bytes: Number(rows[0]?.bytes ?? 0), fullPageImages: Number(rows[0]?.fpi ?? 0) };
}

function uuidFrom(text: string): string {
  const hex = createHash("md5").update(text).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
