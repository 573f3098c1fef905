import type { PrismaClient } from "../generated/prisma/client";

/**
 * Guest customers who never ordered, once no session can name them any more
 * (their seal expired, see lib/session.ts): sessions are free to start, so
 * without this the table grows with every visitor and every script. A
 * customer with an order, or with any idempotency record (an attempt that
 * may still create one), stays. Bounded batches with `skip locked`, like the
 * key cleanup, so several cleaners share the work.
 */
export async function deleteIdleCustomers(
  prisma: PrismaClient,
  options: { olderThanSeconds: number; batchSize?: number; maxBatches?: number },
): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  let deleted = 0;
  for (let batch = 0; batch < (options.maxBatches ?? 10); batch++) {
    // Raw SQL: Prisma's deleteMany has no LIMIT and no SKIP LOCKED.
    const count = await prisma.$executeRaw`
      delete from customers
       where id in (select c.id from customers c
                     where c.created_at < now() - ${options.olderThanSeconds} * interval '1 second'
                       and not exists (select 1 from orders o where o.customer_id = c.id)
                       and not exists (select 1 from idempotency_keys k where k.subject_id = c.id::text)
                     limit ${batchSize}
                     for update skip locked)`;
    deleted += count;
    if (count < batchSize) break;
  }
  return deleted;
}
