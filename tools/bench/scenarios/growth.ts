import { bulkLoadKeys, checkpoint, claim, keyRow, openDb, resetKeys, walStats } from "../lib/database";
import { runConcurrent } from "../lib/measure";
import { goal, type Scenario } from "../lib/scenario";

/**
 * Claim latency as the table grows: the same load of fresh claims against an
 * empty table, then against one holding `storedKeys` finished records (1 M in
 * full mode). The unique index is a B-tree, so the cost should grow with its
 * depth (log n), not with n.
 */
export const PROBE_CONCURRENCY = 4;

export const growth: Scenario = {
  name: "growth",
  title: "table growth",
  async run(ctx) {
    const { sizes } = ctx;
    const db = openDb(ctx.databaseUrl);
    try {
      const wal: Record<string, number> = {};
      // Measured probes start right after a checkpoint: the same point of the
      // WAL's full-page-image cycle, and no write-back of the bulk load left.
      const probe = async (count: number, tag?: string) => {
        if (tag) await checkpoint(db);
        const before = await walStats(db);
        const measure = await runConcurrent({ concurrency: PROBE_CONCURRENCY, count, cpu: ctx.cpu }, (i) =>
          claim(db, keyRow(i)),
        );
        const after = await walStats(db);
        if (tag) {
          wal[`WAL bytes per claim, ${tag}`] = Math.round((after.bytes - before.bytes) / count);
          wal[`full-page images per claim, ${tag}`] =
            Math.round(((after.fullPageImages - before.fullPageImages) / count) * 100) / 100;
        }
        return measure;
      };
      await resetKeys(db);
      await probe(500); // warm-up, then empty again
      await resetKeys(db);
      const empty = await probe(sizes.probeClaims, "empty");
      await resetKeys(db);
      const started = performance.now();
      await bulkLoadKeys(db, sizes.storedKeys, { expired: false, log: ctx.log });
      const loadSeconds = (performance.now() - started) / 1000;
      const full = await probe(sizes.probeClaims, label(sizes.storedKeys));
      const size = await db.pool.query<{ table: string; indexes: string }>(
        `select pg_size_pretty(pg_table_size('idempotency_keys')) as table,
                pg_size_pretty(pg_indexes_size('idempotency_keys')) as indexes`,
      );
      return {
        measures: { "claim, empty table": empty, [`claim, ${label(sizes.storedKeys)} stored keys`]: full },
        figures: { "stored keys": sizes.storedKeys, "bulk load seconds": Math.round(loadSeconds * 10) / 10, ...wal },
        goals: [goal(`claim p99 with ${label(sizes.storedKeys)} ÷ empty`, full.p99Ms / empty.p99Ms, "<=", 1.2)],
        notes: [
          `table ${size.rows[0]?.table}, indexes ${size.rows[0]?.indexes} after the load; ${PROBE_CONCURRENCY} claims in flight`,
        ],
      };
    } finally {
      await db.close();
    }
  },
};

export function label(n: number): string {
  return n >= 1_000_000 ? `${n / 1_000_000} M` : `${n / 1000} k`;
}
