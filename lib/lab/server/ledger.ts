import "server-only";
import type Stripe from "stripe";
import type { LabLedgerResponse, Lane } from "@/lib/lab/lab-event";

/**
 * A run's charges as the gateway recorded them, not as the app believes:
 * the newest PaymentIntents of the account, kept when they belong to this
 * customer and this run. Naive ones carry `lane: naive` and `labRun`; the
 * real endpoint's carry only `idempotencyKey` (the payment path knows
 * nothing of the lab), so they are matched by the keys the run sent.
 */
export const LEDGER_PAGE = 100;

export async function labLedger(
  stripe: Stripe,
  run: { runId: string; customerId: string; idempotencyKeys: ReadonlySet<string> },
): Promise<LabLedgerResponse> {
  const page = await stripe.paymentIntents.list({ limit: LEDGER_PAGE });
  const lanes: LabLedgerResponse["lanes"] = { naive: emptyLane(), idempotent: emptyLane() };
  for (const intent of page.data) {
    const lane = laneOf(intent.metadata, run);
    if (!lane) continue;
    lanes[lane].intents.push({ id: intent.id, status: intent.status, amount: intent.amount, created: intent.created });
    if (intent.status === "succeeded") lanes[lane].charges += 1;
  }
  return { lanes };
}

function laneOf(
  metadata: Stripe.Metadata,
  run: { runId: string; customerId: string; idempotencyKeys: ReadonlySet<string> },
): Lane | null {
  if (metadata.customerId !== run.customerId) return null;
  if (metadata.lane === "naive") return metadata.labRun === run.runId ? "naive" : null;
  return metadata.idempotencyKey && run.idempotencyKeys.has(metadata.idempotencyKey) ? "idempotent" : null;
}

function emptyLane(): LabLedgerResponse["lanes"][Lane] {
  return { charges: 0, intents: [] };
}
