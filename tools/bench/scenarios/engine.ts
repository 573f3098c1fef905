import { POOL_SIZE } from "@/lib/db";
import { claim, keyRows, openDb, rawInsert, resetKeys } from "../lib/database";
import { Recorder, runConcurrent } from "../lib/measure";
import { goal, type Scenario } from "../lib/scenario";

/**
 * The claim engine alone, in this process: fresh claims through
 * `IdempotencyEngine.claim` (Prisma, one CTE statement that inserts or reads)
 * against the floor, a raw `pg` `insert … on conflict do nothing` of the same
 * rows, both through one pool of the app's size kept full (2 × pool in
 * flight). Rounds alternate so that a change in the machine's other work
 * weighs on both sides alike.
 */
const ROUNDS = 4;

export const engine: Scenario = {
  name: "engine",
  title: "claim engine alone",
  async run(ctx) {
    const db = openDb(ctx.databaseUrl);
    try {
      const perRound = Math.ceil(ctx.sizes.engineClaims / ROUNDS);
      const load = (recorder?: Recorder) => ({
        concurrency: 2 * POOL_SIZE,
        count: perRound,
        cpu: ctx.cpu,
        ...(recorder ? { recorder } : {}),
      });
      const [warmRaw, warmClaims] = [keyRows(perRound), keyRows(perRound)];
      await runConcurrent(load(), (i) => rawInsert(db.pool, warmRaw[i]!));
      await runConcurrent(load(), (i) => claim(db, warmClaims[i]!));

      const raw = new Recorder();
      const claims = new Recorder();
      for (let round = 0; round < ROUNDS; round++) {
        const rows = keyRows(perRound); // the same rows on both sides, in an emptied table
        await resetKeys(db);
        await runConcurrent(load(raw), (i) => rawInsert(db.pool, rows[i]!));
        await resetKeys(db);
        await runConcurrent(load(claims), async (i) => {
          const result = await claim(db, rows[i]!);
          if (result.kind !== "claimed") throw new Error(`a fresh key was not claimed: ${result.kind}`);
        });
      }
      const [engineMeasure, rawMeasure] = [claims.measure(), raw.measure()];
      return {
        measures: { "IdempotencyEngine.claim": engineMeasure, "raw INSERT … ON CONFLICT DO NOTHING": rawMeasure },
        goals: [goal("engine claims/s ÷ raw inserts/s", engineMeasure.perSecond / rawMeasure.perSecond, ">=", 0.5)],
        notes: [],
      };
    } finally {
      await db.close();
    }
  },
};
