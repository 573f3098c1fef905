import type { PrismaClient } from "../generated/prisma/client";

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

export async function deleteExpiredKeys(
  prisma: PrismaClient,
  options: { batchSize?: number; maxBatches?: number } = {},
): Promise<CleanupResult> {
  const batchSize = options.batchSize ?? 1000;
  const maxBatches = options.maxBatches ?? Number.POSITIVE_INFINITY;
  let deleted = 0;
  let batches = 0;
  while (batches < maxBatches) {
    // Raw SQL: Prisma's deleteMany has no LIMIT and no SKIP LOCKED.
    const count = await prisma.$executeRaw`
      delete from idempotency_keys
       where id in (select id from idempotency_keys
                     where expires_at < now()
                     order by expires_at
                     limit ${batchSize}
                     for update skip locked)`;
    batches += 1;
    deleted += count;
    if (count < batchSize) break;
  }
  return { deleted, batches };
}
