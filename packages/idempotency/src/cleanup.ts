import { run, sql, type Database } from "./sql";

/**
 * Deletes finished records whose retention ran out, in bounded batches. Each
 * batch is its own short statement, so a claim running at the same time waits
 * for at most one batch; `skip locked` lets two cleaners (cron on two hosts)
 * share the work instead of queueing on each other's rows. In-progress
 * records never expire here: the reconciler finishes them.
 */
export interface CleanupResult {
  deleted: number;
  batches: number;
}

export interface CleanupOptions {
  batchSize?: number;
  maxBatches?: number;
  /**
   * After each batch, rest this many times as long as the batch took (the
   * default 2: at most a third of one database core), so that claims on the
   * same server keep their latency while a large backlog drains.
   */
  restRatio?: number;
  /** How to rest; tests record the pauses instead. */
  rest?: (ms: number) => Promise<void>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function deleteExpiredKeys(db: Database, options: CleanupOptions = {}): Promise<CleanupResult> {
  const batchSize = options.batchSize ?? 1000;
  const maxBatches = options.maxBatches ?? Number.POSITIVE_INFINITY;
  const restRatio = options.restRatio ?? 2;
  const rest = options.rest ?? pause;
  let deleted = 0;
  let batches = 0;
  while (batches < maxBatches) {
    const started = performance.now();
    const rows = await run<{ n: number }>(
      db,
      sql`with gone as (
            delete from idempotency_keys
             where id in (select id from idempotency_keys
                           where expires_at < now()
                           order by expires_at
                           limit ${batchSize}::int
                           for update skip locked)
            returning 1)
          select count(*)::int as n from gone`,
    );
    const count = Number(rows[0]?.n ?? 0);
    batches += 1;
    deleted += count;
    if (count < batchSize || batches >= maxBatches) break;
    if (restRatio > 0) await rest((performance.now() - started) * restRatio);
  }
  return { deleted, batches };
}
