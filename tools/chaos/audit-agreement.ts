import { runAudit } from "@/lib/audit/audit";
import { isMoneyWrong, type AuditReport } from "@/lib/audit/findings";
import { shopIdentity } from "@/lib/checkout/intent-ownership";
import { createPrismaClient } from "@/lib/db";
import { createStripeClient } from "@/lib/payments/stripe-client";
import type { Verdict } from "./checker/invariants";
import { APP_SETTINGS, SESSION_SECRET, SHOP_ID } from "./cluster";

/**
 * The audit the shop runs in production, over the soak's window after
 * convergence, held against the independent checker: on a sound build both
 * are clean (no finding says money is wrong), and on the broken build the
 * audit's double charges are the checker's (the same attempts). A shop that
 * trusts its audit in production needs it to see what the checker sees.
 */
export interface AuditAgreement {
  report: AuditReport;
  moneyFindings: number;
  /** Attempts (Idempotency-Keys) charged twice, as each says. */
  doubleCharged: { audit: string[]; checker: string[] };
  /** Null when they agree; else why not. */
  disagreement: string | null;
}

export async function auditAgreement(
  input: { databaseUrl: string; emulatorUrl: string; from: Date },
  verdict: Verdict,
): Promise<AuditAgreement> {
  const prisma = createPrismaClient(input.databaseUrl);
  let report: AuditReport;
  try {
    report = await runAudit(
      {
        prisma,
        stripe: createStripeClient({ secretKey: "sk_test_emulator", apiBase: input.emulatorUrl }),
        identity: shopIdentity(SHOP_ID, [SESSION_SECRET]),
        attemptDeadlineMs: Number(APP_SETTINGS.PAYMENT_ATTEMPT_DEADLINE_MS),
        actionTimeoutMs: Number(APP_SETTINGS.PAYMENT_ACTION_TIMEOUT_MS),
      },
      { from: input.from, to: new Date(Date.now() + 1_000) },
    );
  } finally {
    await prisma.$disconnect();
  }
  const moneyFindings = report.findings.filter((f) => isMoneyWrong(f.kind)).length;
  const audit = report.findings
    .filter((f) => f.kind === "double_charge")
    .map((f) => f.attemptKey ?? f.key)
    .sort();
  const checker = verdict.violations
    .filter((v) => v.invariant === "one_charge_per_attempt")
    .map((v) => v.subject)
    .sort();
  let disagreement: string | null = null;
  if (audit.join() !== checker.join())
    disagreement = `double charges differ: the audit names ${audit.join(", ") || "none"}, the checker ${checker.join(", ") || "none"}`;
  else if (verdict.violations.length === 0 && moneyFindings > 0)
    disagreement = `the checker is clean, the audit finds money wrong: ${report.findings
      .filter((f) => isMoneyWrong(f.kind))
      .map((f) => `${f.kind} ${f.detail}`)
      .join("; ")}`;
  return { report, moneyFindings, doubleCharged: { audit, checker }, disagreement };
}
