import { engineDatabase } from "@/lib/db";
import { deleteExpiredKeys } from "@checkout/idempotency";
import { bulkLoadKeys, checkpoint, claim, keyRow, openDb, resetKeys } from "../lib/database";
import { Recorder, runConcurrent } from "../lib/measure";
import { goal, type Scenario } from "../lib/scenario";
import { label, PROBE_CONCURRENCY } from "./growth";

/**
 * Claims while `db:cleanup` (deleteExpiredKeys, batches of 1000, its own
 * connection pool) deletes `storedKeys` expired records, against claims on
 * the same table while no cleanup runs. The deletion is split into rounds,
 * each preceded by a probe without cleanup, so both sides see the same
 * table sizes and the same moments of the machine's other work.
 */
const ROUNDS = 4;
const BATCH = 1000; // deleteExpiredKeys' default

export const cleanup: Scenario = {
  name: "cleanup",
  title: "cleanup",
  async run(ctx) {
    const { sizes } = ctx;
    const db = openDb(ctx.databaseUrl);
    const cleaner = openDb(ctx.databaseUrl);
    try {
      await resetKeys(db);
      await bulkLoadKeys(db, sizes.storedKeys, { expired: true, log: ctx.log });
      await checkpoint(db);
      // Fresh rows are made as the probe goes: how many it needs depends on how long the cleanup takes.
      const probe = (options: { count?: number; until?: Promise<unknown>; recorder?: Recorder }) =>
        runConcurrent({ concurrency: PROBE_CONCURRENCY, cpu: ctx.cpu, ...options }, (i) => claim(db, keyRow(i)));
      await probe({ count: 500 });

      const [without, during] = [new Recorder(), new Recorder()];
      let deleted = 0;
      let seconds = 0;
      for (let round = 0; round < ROUNDS; round++) {
        await probe({ count: Math.ceil(sizes.probeClaims / ROUNDS), recorder: without });
        const started = performance.now();
        const maxBatches =
          round === ROUNDS - 1 ? Number.POSITIVE_INFINITY : Math.ceil(sizes.storedKeys / BATCH / ROUNDS);
        const deleting = deleteExpiredKeys(engineDatabase(cleaner.prisma), { batchSize: BATCH, maxBatches });
        await probe({ until: deleting, recorder: during });
        deleted += (await deleting).deleted;
        seconds += (performance.now() - started) / 1000;
      }
      const notes = [
        `cleanup deleted ${deleted.toLocaleString("en")} keys in ${seconds.toFixed(1)} s, ${Math.round(deleted / seconds).toLocaleString("en")} keys/s`,
      ];
      if (deleted !== sizes.storedKeys) notes.push(`expected ${sizes.storedKeys} deletions`);
      const [calm, busy] = [without.measure(), during.measure()];
      return {
        measures: {
          [`claim, ${label(sizes.storedKeys)} expired keys, no cleanup`]: calm,
          "claim during cleanup": busy,
        },
        figures: { "keys deleted": deleted, "cleanup seconds": Math.round(seconds * 10) / 10 },
        goals: [goal("claim p99 during cleanup ÷ without", busy.p99Ms / calm.p99Ms, "<=", 2)],
        notes,
      };
    } finally {
      await Promise.all([db.close(), cleaner.close()]);
    }
  },
};
