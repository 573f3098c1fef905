/**
 * Two questions a platform asks an app instance:
 *
 * - liveness (GET /api/health/live): does the process answer? It touches no
 *   dependency: restarting the app fixes neither a database nor Stripe.
 * - readiness (GET /api/health, the contract's route): can it take payments?
 *   The database is asked every time (a local `select 1`); Stripe's answer is
 *   reused for `providerCacheMs`, so probes from every load balancer and
 *   orchestrator do not each spend the Stripe rate limit. While Stripe's
 *   latest answer to any of the app's clients refused the key or a
 *   payment-path permission, payments are not ready, and `reason` says what
 *   to change: which variable to anyone, the refused path too to the metrics
 *   token's holder (a path may carry Stripe object ids). So do a publishable
 *   and a secret key of two accounts (payments/key-pair.ts). Alarms (a refused catch-up, an intent whose MAC fails) leave
 *   it ready; their reasons are shown to the metrics token's holder.
 */
import "server-only";
import type Stripe from "stripe";
import type { PrismaClient } from "./generated/prisma/client";
import { activeAlarms } from "./alarms";
import { keyPairProblem } from "./payments/key-pair";
import { currentRefusal, describeRefusal, summariseRefusal } from "./payments/provider-refusals";

export interface Health {
  ok: boolean;
  db: boolean;
  payments: boolean;
  reason?: string;
  /** What an operator must look at while payments still work (lib/alarms.ts); only for the metrics token's holder. */
  alarms?: string[];
}

export function liveness(): { ok: true } {
  return { ok: true };
}

/** Both dependencies are probed in parallel; a slow one cannot hang the check. */
export async function checkHealth(
  prisma: PrismaClient,
  stripe: Stripe,
  options: { providerCacheMs: number; showAlarms?: boolean },
): Promise<Health> {
  const [dbOk, reachable] = await Promise.all([
    withTimeout(prisma.$queryRaw`select 1`, 2_000),
    paymentsReachable(stripe, options.providerCacheMs),
  ]);
  const refusal = currentRefusal();
  // Keys of two accounts fail every card payment, as a refused key does: a variable to change.
  const keyPair = keyPairProblem();
  const paymentsOk = reachable && !refusal && !keyPair;
  const reason = refusal ? (options.showAlarms ? describeRefusal(refusal) : summariseRefusal(refusal)) : keyPair;
  return {
    ok: dbOk && paymentsOk,
    db: dbOk,
    payments: paymentsOk,
    ...(reason ? { reason } : {}),
    ...(options.showAlarms ? { alarms: activeAlarms().map((alarm) => alarm.reason) } : {}),
  };
}

// On globalThis: Next may bundle this module more than once, and the cache must be one per process.
const probes = globalThis as unknown as { paymentsProbe?: { startedAt: number; reachable: Promise<boolean> } };

/**
 * Stripe's last answer while it is younger than `cacheMs` (failures too: a
 * provider that is down is not asked again by every probe). Concurrent
 * probes share the one call in flight.
 */
function paymentsReachable(stripe: Stripe, cacheMs: number, now = Date.now()): Promise<boolean> {
  const last = probes.paymentsProbe;
  if (last && now - last.startedAt < cacheMs) return last.reachable;
  const reachable = withTimeout(stripe.paymentIntents.list({ limit: 1 }), 2_500);
  probes.paymentsProbe = { startedAt: now, reachable };
  return reachable;
}

async function withTimeout(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
