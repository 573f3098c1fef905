import type { PrismaClient } from "../generated/prisma/client";
import { dashboardUrl, type FindingKind } from "../audit/findings";
import { latestFindings, latestRuns } from "../audit/store";

/**
 * What the operator's page shows: the latest audits, the findings of the
 * latest (open first), and three live views of the database that need no
 * audit: orders owed money, attempts past their deadline, the inbox's backlog.
 * What to do about each kind is written once, here (docs/operations.md has
 * the long form).
 */
export const WHAT_TO_DO: Record<FindingKind, string> = {
  charge_without_order:
    "Open the payment in the Dashboard: refund it, or restore the order from its metadata if the shopper should get the goods.",
  double_charge: "Refund every charge of the attempt but the one its order records, in the Dashboard.",
  order_without_charge:
    "Do not ship: check the payment in the Dashboard, then mark the order failed or find its charge.",
  refund_state_differs:
    "Stripe is the truth: check the refund in the Dashboard; the shop's next event catch-up corrects the order.",
  refund_failed:
    "The shopper is owed the money: contact them for another way to pay it back, or refund again in the Dashboard.",
  refunds_exceed_charge:
    "More went back than was charged: find the refund no one asked for (the order's refunds on /ops/orders), and recover it from the shopper or write it off.",
  refund_attempt_repeated:
    "One press made two refunds: recover the extra one as for refunds_exceed_charge, and report the bug; the engine should have made one.",
  attempt_not_final: "Run npm run reconcile; if it stays, look for the reconciler's errors in the logs.",
  event_not_processed: "Read its last error; fix the cause, and the maintenance loop retries it.",
  intent_open: "Cancel it in the Dashboard if the shopper has gone; the reconciler should have.",
};

export async function opsOverview(prisma: PrismaClient, options: { attemptDeadlineMs: number }) {
  const deadline = new Date(Date.now() - options.attemptDeadlineMs);
  const [runs, findings, owed, stuck, backlog, oldest] = await Promise.all([
    latestRuns(prisma, 5),
    latestFindings(prisma),
    prisma.order.findMany({
      where: { refundFailedAt: { not: null }, refundedAt: null },
      orderBy: { refundFailedAt: "desc" },
      take: 50,
      select: {
        id: true,
        customerId: true,
        amountCents: true,
        currency: true,
        paymentIntentId: true,
        refundFailedAt: true,
        refundFailure: true,
      },
    }),
    prisma.idempotencyKey.findMany({
      where: { status: "in_progress", createdAt: { lt: deadline } },
      orderBy: { createdAt: "asc" },
      take: 50,
      select: { key: true, subjectId: true, createdAt: true, order: { select: { id: true, paymentIntentId: true } } },
    }),
    prisma.webhookEvent.count({ where: { processedAt: null } }),
    prisma.webhookEvent.findFirst({
      where: { processedAt: null },
      orderBy: { receivedAt: "asc" },
      select: { id: true, type: true, receivedAt: true, attempts: true, lastError: true },
    }),
  ]);
  return {
    runs: runs.map((run) => ({ ...run, counts: run.counts as Record<FindingKind, number> })),
    findings: findings.map((f) => ({ ...f, whatToDo: WHAT_TO_DO[f.finding.kind] })),
    owed: owed.map((order) => ({
      ...order,
      dashboardUrl: order.paymentIntentId ? dashboardUrl(order.paymentIntentId) : null,
    })),
    stuck: stuck.map(({ order, ...attempt }) => ({
      ...attempt,
      orderId: order?.id ?? null,
      dashboardUrl: order?.paymentIntentId ? dashboardUrl(order.paymentIntentId) : null,
    })),
    inbox: { unprocessed: backlog, oldest },
  };
}

export type OpsOverview = Awaited<ReturnType<typeof opsOverview>>;
