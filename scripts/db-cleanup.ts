// npm run db:cleanup — deletes idempotency records whose retention ran out,
// webhook inbox rows processed more than WEBHOOK_RETENTION_DAYS ago, and
// guest customers who never ordered once their session can no longer exist.
// Safe from cron every minute and from several hosts at once, e.g.
//   * * * * *  cd /srv/checkout && npm run -s db:cleanup >> /var/log/checkout-cleanup.log 2>&1
import "./lib/dotenv";
import { createPrismaClient, engineDatabase } from "@/lib/db";
import { provisionDatabase } from "@/lib/db/provision";
import { parseEnv } from "@/lib/env";
import { withShopIdentity } from "@/lib/shop-identity";
import { deleteIdleCustomers } from "@/lib/customers/expire";
import { deleteStaleAdmissionCounters } from "@/lib/abuse/admission-cleanup";
import { deleteExpiredKeys } from "@checkout/idempotency";
import { SESSION_TTL_SECONDS } from "@/lib/session";
import { deleteProcessedEvents } from "@/lib/webhooks/inbox";
import { runScript } from "./lib/run-script";

runScript(async () => {
  const config = parseEnv();
  const database = await provisionDatabase(config);
  const prisma = createPrismaClient(database.url);
  try {
    // Deletes only what has expired, whoever's; refusing without an identity keeps every production process alike.
    await withShopIdentity(config, database);
    const started = Date.now();
    const { deleted, batches } = await deleteExpiredKeys(engineDatabase(prisma));
    const webhookEvents = await deleteProcessedEvents(prisma, { maxBatches: Number.POSITIVE_INFINITY });
    const customers = await deleteIdleCustomers(prisma, {
      olderThanSeconds: SESSION_TTL_SECONDS,
      maxBatches: Number.POSITIVE_INFINITY,
    });
    const admissionCounters = await deleteStaleAdmissionCounters(prisma, { maxBatches: Number.POSITIVE_INFINITY });
    console.log(
      JSON.stringify({
        event: "cleanup",
        deleted,
        batches,
        webhookEvents,
        customers,
        admissionCounters,
        ms: Date.now() - started,
      }),
    );
  } finally {
    await prisma.$disconnect();
    await database.stop();
  }
});
