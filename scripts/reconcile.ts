// npm run reconcile — finishes checkout attempts nobody is finishing (an owner
// that died mid-payment, a shopper who never retried), charging at most once.
// Safe from cron and from several hosts at once.
import "./lib/dotenv";
import { reconcileAbandoned } from "@/lib/checkout/reconcile";
import { createPrismaClient } from "@/lib/db";
import { provisionDatabase } from "@/lib/db/provision";
import { parseEnv } from "@/lib/env";
import { IdempotencyEngine } from "@/lib/idempotency/engine";
import { observe } from "@/lib/observability";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { runScript } from "./lib/run-script";

runScript(async () => {
  const env = parseEnv();
  const database = await provisionDatabase(env);
  const prisma = createPrismaClient(database.url);
  try {
    const counts = await reconcileAbandoned({
      prisma,
      stripe: createStripeClient({
        secretKey: env.STRIPE_SECRET_KEY,
        apiBase: env.stripeApiBase,
        timeoutMs: env.STRIPE_TIMEOUT_MS,
        maxNetworkRetries: env.STRIPE_MAX_NETWORK_RETRIES,
      }),
      idempotency: new IdempotencyEngine(prisma, {
        inProgressTtlMs: env.IDEMPOTENCY_IN_PROGRESS_TTL_MS,
        retentionHours: env.IDEMPOTENCY_RETENTION_HOURS,
      }),
      log: observe,
    });
    console.log(JSON.stringify({ event: "reconcile_run", ...counts }));
  } finally {
    await prisma.$disconnect();
    await database.stop();
  }
});
