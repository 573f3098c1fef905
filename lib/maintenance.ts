import "server-only";
import { reconcileAbandoned } from "./checkout/reconcile";
import { deleteExpiredKeys } from "./idempotency/cleanup";
import { observe, observeError } from "./observability";
import { checkoutDeps } from "./services";

/**
 * Optional in-process upkeep (MAINTENANCE_INTERVAL_MS): the reconciler and the
 * expiry cleanup on a timer in every app instance. Both are safe to run from
 * several instances at once; cron with `npm run reconcile` / `db:cleanup` does
 * the same from outside.
 */
export function startMaintenance(intervalMs: number): () => void {
  let running = false;
  const tick = async () => {
    if (running) return; // a slow round is never overlapped by the next
    running = true;
    try {
      const deps = checkoutDeps();
      await reconcileAbandoned(deps);
      const { deleted } = await deleteExpiredKeys(deps.prisma, { maxBatches: 10 });
      if (deleted > 0) observe("cleanup", { deleted });
    } catch (err) {
      observeError("maintenance_error", err);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
