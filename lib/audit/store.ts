import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client";
import { moneyWrong, type AuditReport, type Finding } from "./findings";

/**
 * Each run's summary, and each finding once however many runs see it: a
 * finding is new (and logged) the first time its key is stored; later runs
 * only mark it seen again. It is open while the latest run sees it and nobody
 * marked it handled.
 */
export async function storeRun(
  prisma: PrismaClient,
  report: AuditReport,
  startedAt: Date,
): Promise<{ runId: string; newFindings: Finding[] }> {
  const runId = randomUUID();
  await prisma.auditRun.create({
    data: {
      id: runId,
      startedAt,
      windowFrom: new Date(report.window.from),
      windowTo: new Date(report.window.to),
      intents: report.intents,
      counts: report.counts,
      moneyWrong: moneyWrong(report),
    },
  });
  const newFindings: Finding[] = [];
  for (const finding of report.findings) {
    // Raw SQL: whether this statement inserted (xmax = 0) or found the key, in the statement that writes.
    const rows = await prisma.$queryRaw<Array<{ inserted: boolean }>>`
      insert into audit_findings (key, kind, finding, last_run_id)
      values (${finding.key}, ${finding.kind}, ${JSON.stringify(finding)}::jsonb, ${runId}::uuid)
      on conflict (key) do update set finding = excluded.finding, last_run_id = excluded.last_run_id
      returning (xmax = 0) as inserted`;
    if (rows[0]?.inserted) newFindings.push(finding);
  }
  return { runId, newFindings };
}

/** The latest runs, newest first. */
export function latestRuns(prisma: PrismaClient, take = 10) {
  return prisma.auditRun.findMany({
    orderBy: { finishedAt: "desc" },
    take,
    select: {
      id: true,
      startedAt: true,
      finishedAt: true,
      windowFrom: true,
      windowTo: true,
      intents: true,
      counts: true,
      moneyWrong: true,
    },
  });
}

export interface StoredFinding {
  finding: Finding;
  firstSeenAt: Date;
  handled: { at: Date; by: string; note: string } | null;
}

/** The findings the latest run saw: open first, then those handled (with who, when and why). */
export async function latestFindings(prisma: PrismaClient): Promise<StoredFinding[]> {
  const [latest] = await latestRuns(prisma, 1);
  if (!latest) return [];
  const rows = await prisma.auditFinding.findMany({
    where: { lastRunId: latest.id },
    orderBy: [{ handledAt: { sort: "desc", nulls: "first" } }, { firstSeenAt: "asc" }],
    select: { finding: true, firstSeenAt: true, handledAt: true, handledBy: true, handledNote: true },
  });
  return rows.map((row) => ({
    finding: row.finding as unknown as Finding,
    firstSeenAt: row.firstSeenAt,
    handled: row.handledAt ? { at: row.handledAt, by: row.handledBy ?? "", note: row.handledNote ?? "" } : null,
  }));
}

/** Marks a finding handled, once: false when there is no such finding or it was handled already. */
export async function markHandled(
  prisma: PrismaClient,
  key: string,
  by: { who: string; note: string },
): Promise<boolean> {
  const { count } = await prisma.auditFinding.updateMany({
    where: { key, handledAt: null },
    data: { handledAt: new Date(), handledBy: by.who, handledNote: by.note },
  });
  return count === 1;
}
