import { Gauge, type Registry } from "prom-client";
import type { PrismaClient } from "../generated/prisma/client";
import { FINDING_KINDS, type FindingKind } from "./findings";

/**
 * The audit's gauges, read from the stored runs when scraped, so every
 * instance reports the fleet's latest run, whichever instance ran it:
 * `checkout_audit_findings{kind}` (the latest run's count per kind) and
 * `checkout_audit_last_clean_run_timestamp_seconds` (0 before any clean
 * run). An alert pages on a finding, or on a clean run too long ago.
 */
export function registerAuditMetrics(registry: Registry, prisma: () => PrismaClient): void {
  if (registry.getSingleMetric("checkout_audit_findings")) return;
  new Gauge({
    name: "checkout_audit_findings",
    help: "Findings of the latest audit run by kind (docs/operations.md, The audit)",
    labelNames: ["kind"],
    registers: [registry],
    async collect() {
      const latest = await prisma().auditRun.findFirst({ orderBy: { finishedAt: "desc" }, select: { counts: true } });
      const counts = (latest?.counts ?? {}) as Partial<Record<FindingKind, number>>;
      for (const kind of FINDING_KINDS) this.set({ kind }, counts[kind] ?? 0);
    },
  });
  new Gauge({
    name: "checkout_audit_last_clean_run_timestamp_seconds",
    help: "When the latest audit run with no finding finished, in Unix seconds; 0 before any",
    registers: [registry],
    async collect() {
      const rows = await prisma().$queryRaw<Array<{ at: Date | null }>>`
        select max(finished_at) as at from audit_runs
         where not exists (select 1 from jsonb_each_text(counts) c where c.value::int > 0)`;
      this.set(rows[0]?.at ? rows[0].at.getTime() / 1000 : 0);
    },
  });
}
