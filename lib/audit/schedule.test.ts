import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR, seedThreeWrongs, startAuditShop, type AuditShop } from "@/tests/helpers/audit-shop";
import type { AuditDeps } from "./audit";
import { registerAuditMetrics } from "./metrics";
import { runScheduledAudit } from "./schedule";
import { latestFindings, latestRuns, markHandled } from "./store";

/** The audit as the maintenance loop runs it: one instance at a time, each run stored, each finding told once. */
let shop: AuditShop;
beforeAll(async () => {
  shop = await startAuditShop("auditschedule", "sk_test_audit_schedule");
});
afterAll(() => shop.close());

const logged: Array<{ event: string; fields: Record<string, unknown> }> = [];
const deps = (): AuditDeps => ({
  prisma: shop.prisma,
  stripe: shop.deps.stripe,
  identity: shop.deps.identity,
  attemptDeadlineMs: HOUR,
  actionTimeoutMs: HOUR,
  log: (event, fields) => void logged.push({ event, fields }),
});
const metrics = async () => {
  const registry = new Registry();
  registerAuditMetrics(registry, () => shop.prisma);
  return registry.metrics();
};

describe("the scheduled audit", () => {
  it("runs once across instances while a run is recent, stores its summary, and reports a clean run", async () => {
    const results = await Promise.all([1, 2, 3].map(() => runScheduledAudit(deps(), HOUR)));
    expect(results.filter((r) => r.ran)).toEqual([{ ran: true, findings: 0, newFindings: 0 }]);
    expect(results.filter((r) => !r.ran).map((r) => (r.ran ? "" : r.why))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(held|not_due)$/)]),
    );
    expect(await runScheduledAudit(deps(), HOUR)).toEqual({ ran: false, why: "not_due" });
    expect(await latestRuns(shop.prisma)).toHaveLength(1);
    const text = await metrics();
    expect(text).toMatch(/checkout_audit_findings\{kind="double_charge"\} 0/);
    const clean = Number(/checkout_audit_last_clean_run_timestamp_seconds (\d+(\.\d+)?)/.exec(text)?.[1]);
    expect(clean).toBeGreaterThan(Date.now() / 1000 - 60);
  });

  it("tells each finding once as an error, counts it in the metrics, and keeps who handled it and why", async () => {
    const { behind } = await seedThreeWrongs(shop);
    logged.length = 0;
    expect(await runScheduledAudit(deps(), 1)).toMatchObject({ ran: true, findings: 3, newFindings: 3 });
    const told = logged.filter((l) => l.event === "audit_finding");
    expect(told.map((l) => l.fields.kind).sort()).toEqual([
      "charge_without_order",
      "event_not_processed",
      "refund_failed",
    ]);
    expect(told.every((l) => l.fields.alarm === true)).toBe(true);

    logged.length = 0;
    expect(await runScheduledAudit(deps(), 1)).toMatchObject({ ran: true, findings: 3, newFindings: 0 });
    expect(logged.filter((l) => l.event === "audit_finding")).toEqual([]);
    expect(await metrics()).toMatch(/checkout_audit_findings\{kind="charge_without_order"\} 1/);

    const key = `charge_without_order:${behind.id}`;
    expect(await markHandled(shop.prisma, key, { who: "ops", note: "refunded in the Dashboard" })).toBe(true);
    expect(await markHandled(shop.prisma, key, { who: "ops", note: "again" })).toBe(false);
    const findings = await latestFindings(shop.prisma);
    expect(findings.map((f) => f.handled === null)).toEqual([true, true, false]); // open first
    expect(findings.find((f) => f.finding.key === key)?.handled).toMatchObject({
      by: "ops",
      note: "refunded in the Dashboard",
      at: expect.any(Date),
    });
  });
});
