import { FINDING_KINDS, isMoneyWrong, type AuditReport } from "./findings";

/** The report as a person reads it in ten seconds: the window, counts per kind, then each finding with its ids and link. */
export function auditTable(report: AuditReport): string {
  const lines = [
    `Audit ${report.window.from} → ${report.window.to}: ${report.intents} PaymentIntents of this shop`,
    "",
  ];
  const width = Math.max(...FINDING_KINDS.map((k) => k.length));
  for (const kind of FINDING_KINDS) {
    const n = report.counts[kind];
    lines.push(
      `  ${kind.padEnd(width)}  ${String(n).padStart(5)}${n > 0 && isMoneyWrong(kind) ? "  money is wrong" : ""}`,
    );
  }
  lines.push("");
  if (report.findings.length === 0) {
    lines.push("0 findings: the shop and Stripe agree.");
    return lines.join("\n");
  }
  lines.push(`${report.findings.length} finding(s):`);
  for (const finding of report.findings) {
    const ids = [
      finding.orderId && `order ${finding.orderId}`,
      finding.customerId && `customer ${finding.customerId}`,
      finding.attemptKey && `attempt ${finding.attemptKey}`,
    ].filter(Boolean);
    lines.push(`- ${finding.kind}: ${finding.detail}`);
    if (ids.length > 0) lines.push(`    ${ids.join(" · ")}`);
    if (finding.dashboardUrl) lines.push(`    ${finding.dashboardUrl}`);
  }
  return lines.join("\n");
}
