import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client";
import { runAudit, type AuditDeps } from "./audit";
import { storeRun } from "./store";

/**
 * The audit on a schedule (AUDIT_INTERVAL_MS), over the last day, by one
 * instance of the fleet at a time: the instance that takes the `audit` lease
 * runs it if the latest stored run is older than the interval; the others
 * skip. `npm run audit` takes the same lease, so one audit runs at a time
 * across the fleet and its tools. A lease rather than an advisory lock: it
 * holds no connection (and no transaction) for the minutes a large day's
 * audit takes, and a holder that dies lets it go when it expires.
 */
export const AUDIT_WINDOW_MS = 24 * 3_600_000;
/** Longer than a day of 100,000 intents takes to read (docs/performance.md). */
export const AUDIT_LEASE_MS = 15 * 60_000;
const LEASE = "audit";

export type ScheduledResult =
  { ran: false; why: "not_due" | "held" } | { ran: true; findings: number; newFindings: number };

export async function runScheduledAudit(
  deps: AuditDeps,
  intervalMs: number,
  now = Date.now(),
): Promise<ScheduledResult> {
  if (!(await isDue(deps.prisma, intervalMs))) return { ran: false, why: "not_due" };
  const lease = await takeAuditLease(deps.prisma);
  if ("heldUntil" in lease) return { ran: false, why: "held" };
  try {
    // Another instance may have finished a run between the check and the lease.
    if (!(await isDue(deps.prisma, intervalMs))) return { ran: false, why: "not_due" };
    const startedAt = new Date(now);
    const report = await runAudit(deps, { from: new Date(now - AUDIT_WINDOW_MS), to: startedAt });
    const { newFindings } = await storeRun(deps.prisma, report, startedAt);
    // Each finding is told once, as an error an operator is paged for, however many runs see it.
    for (const finding of newFindings) deps.log?.("audit_finding", { alarm: true, ...finding });
    deps.log?.("audit_run", { intents: report.intents, findings: report.findings.length, new: newFindings.length });
    return { ran: true, findings: report.findings.length, newFindings: newFindings.length };
  } finally {
    await lease.release();
  }
}

/** The `audit` lease for one run, or until when another holds it. */
export async function takeAuditLease(
  prisma: PrismaClient,
): Promise<{ release(): Promise<void> } | { heldUntil: Date | null }> {
  const holder = randomUUID();
  if (await takeLease(prisma, holder))
    return { release: async () => void (await prisma.lease.deleteMany({ where: { name: LEASE, holder } })) };
  const held = await prisma.lease.findUnique({ where: { name: LEASE }, select: { expiresAt: true } });
  return { heldUntil: held?.expiresAt ?? null };
}

async function isDue(prisma: PrismaClient, intervalMs: number): Promise<boolean> {
  const recent = await prisma.auditRun.findFirst({
    where: { startedAt: { gt: new Date(Date.now() - intervalMs) } },
    select: { id: true },
  });
  return recent === null;
}

/** Raw SQL: take the lease only if nobody holds it or it has expired, in one statement (by the database's clock). */
async function takeLease(prisma: PrismaClient, holder: string): Promise<boolean> {
  const rows = await prisma.$queryRaw<Array<{ holder: string }>>`
    insert into leases (name, holder, expires_at)
    values (${LEASE}, ${holder}::uuid, now() + ${AUDIT_LEASE_MS} * interval '1 millisecond')
    on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
      where leases.expires_at < now()
    returning holder::text`;
  return rows[0]?.holder === holder;
}
