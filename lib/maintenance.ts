/**
 * Optional in-process upkeep (MAINTENANCE_INTERVAL_MS): Stripe's event list
 * read back into the webhook inbox (nothing depends on a delivery arriving),
 * the inbox's due events, the reconciler and the expiry cleanup on a timer in
 * every app instance. All are safe to run from several instances at once; cron with
 * `npm run reconcile` / `db:cleanup` does the same from outside. Each step
 * runs even when another failed.
 */
import { engineDatabase } from "./db";
import "server-only";
import { deleteStaleAdmissionCounters } from "./abuse/admission-cleanup";
import { auditStripeClient } from "./audit/client";
import { runScheduledAudit } from "./audit/schedule";
import { reconcileAbandoned } from "./checkout/reconcile";
import { reconcileAbandonedRefunds, refundReconcileDeps } from "./refunds/reconcile";
import { deleteIdleCustomers } from "./customers/expire";
import { env } from "./env";
import { deleteExpiredKeys } from "@checkout/idempotency";
import { observe, observeError } from "./observability";
import { webhookDeps } from "./services";
import { SESSION_TTL_SECONDS } from "./session";
import { catchUpEvents } from "./webhooks/catch-up";
import { deleteProcessedEvents } from "./webhooks/inbox";
import { processDueEvents } from "./webhooks/process";

export function startMaintenance(intervalMs: number, catchUpIntervalMs: number, auditIntervalMs = 0): () => void {
  let running = false;
  let auditing = false;
  let caughtUpAt = -Infinity;
  const tick = async () => {
    if (running) return; // a slow round is never overlapped by the next
    running = true;
    const step = (name: string, run: () => Promise<unknown>) =>
      run().catch((err: unknown) => observeError("maintenance_error", err, { step: name }));
    try {
      const deps = webhookDeps();
      // Beside the loop, not in it: a large day's audit takes a while, the inbox and the reconciler do not wait for it.
      if (auditIntervalMs > 0 && !auditing) {
        auditing = true;
        void step("audit", () => runScheduledAudit(auditDeps(), auditIntervalMs)).finally(() => (auditing = false));
      }
      // One list call per pass at Stripe: paced apart from the loop's own interval.
      if (catchUpIntervalMs > 0 && Date.now() - caughtUpAt >= catchUpIntervalMs) {
        caughtUpAt = Date.now();
        await step("events", () => catchUpEvents(deps));
      }
      await step("webhooks", () => processDueEvents(deps));
      await step("reconcile", () => reconcileAbandoned(deps));
      await step("refund_reconcile", () => reconcileAbandonedRefunds(refundReconcileDeps(deps)));
      await step("cleanup", async () => {
        const { deleted } = await deleteExpiredKeys(engineDatabase(deps.prisma), { maxBatches: 10 });
        if (deleted > 0) observe("cleanup", { deleted });
        const events = await deleteProcessedEvents(deps.prisma);
        if (events > 0) observe("webhook_cleanup", { deleted: events });
        const customers = await deleteIdleCustomers(deps.prisma, { olderThanSeconds: SESSION_TTL_SECONDS });
        if (customers > 0) observe("customer_cleanup", { deleted: customers });
        await deleteStaleAdmissionCounters(deps.prisma);
      });
    } finally {
      running = false;
    }
  };
  const auditDeps = () => ({
    prisma: webhookDeps().prisma,
    stripe: (auditStripe ??= auditStripeClient(env())),
    identity: webhookDeps().identity,
    attemptDeadlineMs: env().PAYMENT_ATTEMPT_DEADLINE_MS,
    actionTimeoutMs: env().PAYMENT_ACTION_TIMEOUT_MS,
    log: observe,
  });
  let auditStripe: ReturnType<typeof auditStripeClient> | undefined;
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
