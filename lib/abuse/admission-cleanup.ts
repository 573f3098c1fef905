import type { PrismaClient } from "../generated/prisma/client";

/**
 * Deletes admission counters whose window ended (docs/decisions/0013-the-gate-in-the-claim.md):
 * the claim reads only the current window's rows, so any row older than the
 * longest window the configuration allows (a day) plus that window again is
 * dead. In bounded batches, like the other cleanups.
 */
export const ADMISSION_COUNTERS_KEPT_SECONDS = 2 * 86_400;

export async function deleteStaleAdmissionCounters(
  prisma: PrismaClient,
  options: { batchSize?: number; maxBatches?: number } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  const maxBatches = options.maxBatches ?? 10;
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    // Raw SQL: Prisma's deleteMany has no LIMIT.
    const count = await prisma.$executeRaw`
      delete from admission_counters
       where ctid in (select ctid from admission_counters
                       where window_start < now() - ${ADMISSION_COUNTERS_KEPT_SECONDS} * interval '1 second'
                       limit ${batchSize})`;
    deleted += count;
    if (count < batchSize) break;
  }
  return deleted;
}
