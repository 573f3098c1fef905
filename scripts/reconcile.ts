// npm run reconcile — processes the webhook inbox's due events, then finishes
// checkout attempts nobody is finishing (an owner that died mid-payment, a
// shopper who never retried), charging at most once, and operator refunds
// nobody is finishing, refunding at most once. Safe from cron and from
// several hosts at once.
import "./lib/dotenv";
import { reconcileAbandoned } from "@/lib/checkout/reconcile";
import { reconcileAbandonedRefunds, refundReconcileDeps } from "@/lib/refunds/reconcile";
import { createPrismaClient } from "@/lib/db";
import { provisionDatabase } from "@/lib/db/provision";
import { parseEnv } from "@/lib/env";
import { stripeFor } from "@/lib/payments/stripe";
import { createCheckoutDeps, createWebhookDeps } from "@/lib/services";
import { withShopIdentity } from "@/lib/shop-identity";
import { processDueEvents } from "@/lib/webhooks/process";
import { runScript } from "./lib/run-script";

runScript(async () => {
  const config = parseEnv();
  const database = await provisionDatabase(config);
  const prisma = createPrismaClient(database.url);
  try {
    const env = await withShopIdentity(config, database);
    const deps = createWebhookDeps(env, createCheckoutDeps(env, prisma, stripeFor(env, "background")));
    const events = await processDueEvents(deps);
    console.log(JSON.stringify({ event: "webhook_run", ...events }));
    const counts = await reconcileAbandoned(deps);
    console.log(JSON.stringify({ event: "reconcile_run", ...counts }));
    const refunds = await reconcileAbandonedRefunds(refundReconcileDeps(deps));
    console.log(JSON.stringify({ event: "refund_reconcile_run", ...refunds }));
  } finally {
    await prisma.$disconnect();
    await database.stop();
  }
});
