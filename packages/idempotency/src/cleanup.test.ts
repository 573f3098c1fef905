import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deleteExpiredKeys } from "./cleanup";
import type { Database } from "./sql";
import { testDatabase } from "./test-database";

let test: Awaited<ReturnType<typeof testDatabase>>;
let db: Database;
beforeAll(async () => {
  test = await testDatabase();
  db = test.db;
});
afterAll(() => test.close());

const ENDPOINT = "POST /api/cleanup-test";
const HOUR = 3600_000;

async function insertKeys(
  n: number,
  fields: { status: "in_progress" | "completed" | "failed"; expiresAt: Date | null },
) {
  await db.query(
    `insert into idempotency_keys (subject_id, endpoint, key, request_hash, status, expires_at)
     select 'cleanup-test', $1, k, $2, $3::idempotency_status, $4 from unnest($5::uuid[]) as k`,
    [ENDPOINT, "c".repeat(64), fields.status, fields.expiresAt, Array.from({ length: n }, () => randomUUID())],
  );
}
const remaining = () =>
  db.query<{ status: string; n: number }>(
    "select status::text as status, count(*)::int as n from idempotency_keys where endpoint = $1 group by status",
    [ENDPOINT],
  );

beforeEach(async () => {
  await db.query("delete from idempotency_keys where endpoint = $1", [ENDPOINT]);
});

describe("cleanup of expired keys", () => {
  it("deletes exactly the expired finished records, in bounded batches", async () => {
    await insertKeys(250, { status: "completed", expiresAt: new Date(Date.now() - HOUR) });
    await insertKeys(30, { status: "failed", expiresAt: new Date(Date.now() - HOUR) });
    await insertKeys(40, { status: "completed", expiresAt: new Date(Date.now() + HOUR) });
    await insertKeys(5, { status: "in_progress", expiresAt: null });

    const pauses: number[] = [];
    const result = await deleteExpiredKeys(db, { batchSize: 100, rest: async (ms) => void pauses.push(ms) });
    expect(result).toEqual({ deleted: 280, batches: 3 });
    // It rests between batches, as long as each batch took (restRatio 1), and not after the last.
    expect(pauses).toHaveLength(2);
    expect(pauses.every((ms) => ms > 0)).toBe(true);
    const left = Object.fromEntries((await remaining()).map((g) => [g.status, g.n]));
    expect(left).toEqual({ completed: 40, in_progress: 5 });
  });

  it("shares the work between two cleaners running at once", async () => {
    await insertKeys(600, { status: "completed", expiresAt: new Date(Date.now() - HOUR) });
    const [a, b] = await Promise.all([
      deleteExpiredKeys(db, { batchSize: 50 }),
      deleteExpiredKeys(db, { batchSize: 50 }),
    ]);
    expect(a.deleted + b.deleted).toBe(600);
    expect(await remaining()).toEqual([]);
  });

  it("rests between batches, not after the last, and not at all with restRatio 0", async () => {
    await insertKeys(30, { status: "completed", expiresAt: new Date(Date.now() - HOUR) });
    const pauses: number[] = [];
    expect(
      await deleteExpiredKeys(db, { batchSize: 10, restRatio: 3, rest: async (ms) => void pauses.push(ms) }),
    ).toEqual({ deleted: 30, batches: 4 });
    expect(pauses).toHaveLength(3);
    expect(pauses.every((ms) => ms > 0)).toBe(true);

    await insertKeys(30, { status: "completed", expiresAt: new Date(Date.now() - HOUR) });
    const none: number[] = [];
    await deleteExpiredKeys(db, { batchSize: 10, restRatio: 0, rest: async (ms) => void none.push(ms) });
    expect(none).toEqual([]);
  });

  it("stops after maxBatches", async () => {
    await insertKeys(30, { status: "completed", expiresAt: new Date(Date.now() - HOUR) });
    expect(await deleteExpiredKeys(db, { batchSize: 10, maxBatches: 2 })).toEqual({ deleted: 20, batches: 2 });
  });
});
