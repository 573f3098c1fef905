import type Stripe from "stripe";
import {
  deriveId,
  downstreamKey,
  type AbandonedRecord,
  type Database,
  type IdempotencyEngine,
  type KeyScope,
} from "@checkout/idempotency";
import type { PrismaClient } from "../generated/prisma/client";
import { engineDatabase, poolOf } from "../db";
import { attemptRefund, ledgerRow, poolTransaction, type Transaction } from "./ledger";
import { REFUND_ENDPOINT, runOperatorRefund } from "./operator-refund";

/**
 * Finishes operator refunds nobody is finishing: a process that died after
 * the claim, before or after its call to Stripe, and an operator who never
 * pressed again. Each is taken over with the fenced compare-and-set a retry
 * uses and run as the retry would run it: the same amount (the ledger row
 * the claim reserved), the same Stripe key (`deriveId(endpoint, attempt)`,
 * `:refund`), so Stripe replays a refund it made and makes one it did not.
 * Its answer is stored: the operator's next press with the key replays it.
 */
export type RefundReconcileOutcome = "refunded" | "refused" | "abandoned" | "unknown" | "skipped";

export interface RefundReconcileDeps {
  idempotency: IdempotencyEngine;
  db: Database;
  transaction: Transaction;
  stripe: Stripe;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/** The reconciler's wiring from the app's (or a script's) checkout wiring. */
export function refundReconcileDeps(deps: {
  prisma: PrismaClient;
  stripe: Stripe;
  idempotency: IdempotencyEngine;
  log?: RefundReconcileDeps["log"];
}): RefundReconcileDeps {
  return {
    idempotency: deps.idempotency,
    db: engineDatabase(deps.prisma),
    transaction: poolTransaction(poolOf(deps.prisma)),
    stripe: deps.stripe,
    log: deps.log,
  };
}

export async function reconcileAbandonedRefunds(
  deps: RefundReconcileDeps,
  options: { limit?: number } = {},
): Promise<Record<RefundReconcileOutcome, number>> {
  const counts: Record<RefundReconcileOutcome, number> = {
    refunded: 0,
    refused: 0,
    abandoned: 0,
    unknown: 0,
    skipped: 0,
  };
  const records = await deps.idempotency.findAbandoned(REFUND_ENDPOINT, options.limit ?? 100);
  for (const record of records) {
    const outcome = await reconcileOne(deps, record);
    counts[outcome] += 1;
    deps.log?.("refund_reconcile", { outcome, recordId: record.recordId, key: record.key });
  }
  return counts;
}

async function reconcileOne(deps: RefundReconcileDeps, record: AbandonedRecord): Promise<RefundReconcileOutcome> {
  const owner = await deps.idempotency.takeOver(record);
  if (!owner) return "skipped"; // a retry or another reconciler got there first
  const scope: KeyScope = { subjectId: record.subjectId, endpoint: REFUND_ENDPOINT, key: record.key };
  const attemptId = deriveId(REFUND_ENDPOINT, scope);
  // The claim's row, or the one Stripe's news recorded under the attempt's id (runOperatorRefund adopts it).
  const refund = (await attemptRefund(deps.db, owner.recordId)) ?? (await ledgerRow(deps.db, attemptId));
  if (!refund) {
    // The claim reserved nothing (its amount did not fit): nothing went to Stripe, the next press asks afresh.
    await deps.idempotency.abandon(owner);
    return "abandoned";
  }
  let answer;
  try {
    answer = await runOperatorRefund(deps, {
      body: { orderId: refund.orderId, amountCents: refund.amountCents, reason: refund.reason },
      scope,
      owner,
      attemptId,
      keyFor: (step) => downstreamKey(attemptId, step),
      refresh: () => deps.idempotency.refresh(owner),
    });
  } catch {
    // Stripe unreachable or unsure: the reservation stands, the next pass (or a press) asks again.
    await deps.idempotency.release(owner, "backoff").catch(() => undefined);
    return "unknown";
  }
  const finished = await deps.idempotency.finish(owner, {
    status: answer.outcome ?? (answer.status < 400 ? "completed" : "failed"),
    response: { statusCode: answer.status, body: JSON.stringify(answer.body), headers: answer.headers ?? {} },
  });
  if (!finished) return "skipped";
  return answer.status === 201 ? "refunded" : "refused";
}
