/**
 * What the audit reports (docs/contract.md, "The audit"): each finding has a
 * kind, a stable key (the same wrong found by two runs is one finding), the
 * ids an operator needs, and one line saying what is wrong.
 */
export const MONEY_KINDS = [
  "charge_without_order",
  "double_charge",
  "order_without_charge",
  "refund_state_differs",
  "refund_failed",
  "refunds_exceed_charge",
  "refund_attempt_repeated",
] as const;
export const STATE_KINDS = ["attempt_not_final", "event_not_processed", "intent_open"] as const;
export const FINDING_KINDS = [...MONEY_KINDS, ...STATE_KINDS] as const;

export type FindingKind = (typeof FINDING_KINDS)[number];

export interface Finding {
  kind: FindingKind;
  /** `<kind>:<subject>`: the same wrong seen by another run has the same key. */
  key: string;
  /** One line for a person. */
  detail: string;
  paymentIntentIds?: string[];
  orderId?: string;
  customerId?: string;
  attemptKey?: string;
  amountCents?: number;
  currency?: string;
  refundId?: string;
  eventId?: string;
  /** The payment in Stripe's Dashboard, when the finding is about one. */
  dashboardUrl?: string;
}

export interface AuditWindow {
  from: Date;
  to: Date;
}

export interface AuditReport {
  window: { from: string; to: string };
  /** This shop's PaymentIntents created in the window, as Stripe lists them. */
  intents: number;
  counts: Record<FindingKind, number>;
  findings: Finding[];
}

/** Whether a finding says money is wrong (the command exits 1, the alert pages). */
export function isMoneyWrong(kind: FindingKind): boolean {
  return (MONEY_KINDS as readonly string[]).includes(kind);
}

export function moneyWrong(report: Pick<AuditReport, "findings">): boolean {
  return report.findings.some((finding) => isMoneyWrong(finding.kind));
}

export function countByKind(findings: Finding[]): Record<FindingKind, number> {
  const counts = Object.fromEntries(FINDING_KINDS.map((kind) => [kind, 0])) as Record<FindingKind, number>;
  for (const finding of findings) counts[finding.kind] += 1;
  return counts;
}

/** The payment in Stripe's Dashboard (test mode: this shop never runs live). */
export function dashboardUrl(paymentIntentId: string): string {
  return `https://dashboard.stripe.com/test/payments/${encodeURIComponent(paymentIntentId)}`;
}
