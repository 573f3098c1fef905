import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { INVARIANTS, type Invariant, type Violation } from "./checker/invariants";
import { CROSS_SHOP_FINDINGS, type CrossShopFinding, type CrossShopKind } from "./cross-shop";
import type { AttemptLog } from "./journal";
import { operatorLine, type OperatorReport } from "./operator";
import type { SoakResult } from "./soak";

/** `chaos/results.json`, exactly the issue's shape. */
export interface ResultsFile {
  attempts: number;
  faults: Record<string, number>;
  outcomes: Record<string, number>;
  violations: Record<Invariant, number>;
  convergedInMs: number;
  /** Write transactions the promoted standbys never received, summed over every failover. */
  failover: { count: number; transactionsLost: number };
  seed: number;
  /** The operator's refunds (operator.ts), judged against Stripe's refunds; `findings` lists contradictions. */
  operatorRefunds: Omit<OperatorReport, "findings"> & { findings: number };
  /** With `--second-shop` only. */
  secondShop?: {
    shopId: string;
    attempts: number;
    outcomes: Record<string, number>;
    /** Its intents at the provider; those that succeeded and stand; its own refunds and cancellations. */
    intents: number;
    payments: number;
    refunds: number;
    cancellations: number;
    /** Its own checker's, on its share of the ledger and its own database. */
    violations: Record<Invariant, number>;
    /** Each a violation: either shop acting on the other's intents, or never seeing them. */
    crossShop: Record<CrossShopKind, number>;
    foreignIntentsSeen: { soak: number; second: number };
    convergedInMs: number;
  };
}

export function resultsFile(result: SoakResult): ResultsFile {
  const second = result.secondShop;
  return {
    attempts: result.attempts,
    faults: Object.fromEntries([...result.faults].map(([kind, c]) => [kind, c.injected])),
    outcomes: sortByCount(result.outcomes),
    violations: result.verdict.counts,
    convergedInMs: result.convergence.ms,
    failover: failoverTotals(result),
    seed: result.options.seed,
    operatorRefunds: { ...result.operator, findings: result.operator.findings.length },
    ...(second
      ? {
          secondShop: {
            shopId: second.shopId,
            attempts: second.attempts,
            outcomes: sortByCount(second.outcomes),
            intents: second.crossShop.figures.secondShopIntents,
            payments: second.crossShop.figures.secondShopPayments,
            refunds: second.crossShop.figures.secondShopRefunds,
            cancellations: second.crossShop.figures.secondShopCancellations,
            violations: second.verdict.counts,
            crossShop: second.crossShop.counts,
            foreignIntentsSeen: second.crossShop.figures.foreignIntentsSeen,
            convergedInMs: second.convergence.ms,
          },
        }
      : {}),
  };
}

export async function writeResults(file: string, result: SoakResult): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  await writeFile(file, JSON.stringify(resultsFile(result), null, 2) + "\n");
}

/** The table printed at the end (and pasted into docs/reliability.md). */
export function table(result: SoakResult): string {
  const { options, verdict } = result;
  const lines: string[] = [];
  const row = (label: string, ...cells: Array<string | number>) => lines.push(`| ${label} | ${cells.join(" | ")} |`);
  lines.push(
    `Chaos soak · seed ${options.seed} · ${result.attempts} attempts · ${options.instances} instances · ${Math.round(result.elapsedMs / 1000)} s`,
    "",
  );
  lines.push("| fault | injected | armed, never tripped |", "| --- | ---: | ---: |");
  for (const [kind, c] of result.faults) row(kind, c.injected, c.missed);
  const failover = failoverTotals(result);
  lines.push(
    "",
    `Failovers: ${failover.count}, losing ${failover.transactionsLost} write transactions the standby had not received.`,
  );
  lines.push("", "| attempts by outcome | n |", "| --- | ---: |");
  for (const [outcome, n] of Object.entries(sortByCount(result.outcomes))) row(outcome, n);
  const behaviours: Record<string, number> = {};
  for (const attempt of result.journal.attempts.values()) {
    for (const b of attempt.behaviours) behaviours[b.split(":")[0]!] = (behaviours[b.split(":")[0]!] ?? 0) + 1;
  }
  lines.push(
    "",
    `Shoppers also: ${
      Object.entries(sortByCount(behaviours))
        .map(([b, n]) => `${b} ${n}`)
        .join(" · ") || "nothing else"
    }.`,
  );
  lines.push("", "| invariant | violations |", "| --- | ---: |");
  for (const [key, text] of Object.entries(INVARIANTS) as Array<[Invariant, string]>) {
    const na = verdict.notApplicable[key];
    row(text, na ? `n/a (${na})` : verdict.counts[key]);
  }
  const j = verdict.judged;
  lines.push(
    "",
    `Judged: ${j.attempts} attempts and ${j.answers} answers shoppers saw; ${j.intents} PaymentIntents (${j.charges} succeeded), ` +
      `${j.refunds} refunds${j.events === null ? "" : `, ${j.events} webhook events`} at the provider; ${j.orders} orders in the database.`,
  );
  lines.push("", `Operator: ${operatorLine(result.operator)}.`);
  lines.push(
    "",
    result.convergence.converged
      ? `Converged in ${(result.convergence.ms / 1000).toFixed(1)} s after the faults stopped.`
      : `Did NOT converge within ${Math.round(result.convergence.ms / 1000)} s: ${JSON.stringify(result.convergence.open)}`,
  );
  lines.push(`Cards: ${result.cards.join(", ")}.`);
  if (result.secondShop) lines.push("", secondShopTable(result.secondShop));
  return lines.join("\n");
}

function secondShopTable(second: NonNullable<SoakResult["secondShop"]>): string {
  const f = second.crossShop.figures;
  const lines = [
    `Second shop ${second.shopId} on the same account: ${second.attempts} attempts ` +
      `(${Object.entries(sortByCount(second.outcomes))
        .map(([o, n]) => `${o} ${n}`)
        .join(" · ")}); ` +
      `${f.secondShopIntents} PaymentIntents, ${f.secondShopPayments} payments standing, ` +
      `${f.secondShopRefunds} refunds and ${f.secondShopCancellations} cancellations of its own; ` +
      `${f.soakIntents} intents of the soak's shop beside them.`,
    `Foreign intents seen: the soak's shop ${f.foreignIntentsSeen.soak}, the second shop ${f.foreignIntentsSeen.second}. ` +
      (second.convergence.converged
        ? `It converged in ${(second.convergence.ms / 1000).toFixed(1)} s.`
        : `It did NOT converge: ${JSON.stringify(second.convergence.open)}`),
    "",
    "| cross-shop check | findings |",
    "| --- | ---: |",
  ];
  for (const [key, text] of Object.entries(CROSS_SHOP_FINDINGS) as Array<[CrossShopKind, string]>)
    lines.push(`| ${text} | ${second.crossShop.counts[key]} |`);
  lines.push("", "| the second shop's own invariants | violations |", "| --- | ---: |");
  for (const [key, text] of Object.entries(INVARIANTS) as Array<[Invariant, string]>) {
    const na = second.verdict.notApplicable[key];
    lines.push(`| ${text} | ${na ? `n/a (${na})` : second.verdict.counts[key]} |`);
  }
  return lines.join("\n");
}

/** Each cross-shop finding, one line each. */
export function crossShopReport(findings: CrossShopFinding[], limit = 50): string {
  const lines = findings
    .slice(0, limit)
    .map((f) => `  ${CROSS_SHOP_FINDINGS[f.kind]}\n    ${f.subject}: ${f.evidence}`);
  if (findings.length > limit) lines.push(`  … and ${findings.length - limit} more`);
  return lines.join("\n");
}

function failoverTotals(result: SoakResult): ResultsFile["failover"] {
  return {
    count: result.failovers.length,
    transactionsLost: result.failovers.reduce((sum, f) => sum + f.transactionsLost, 0),
  };
}

/** Beside the results: every violation with the full journal of its attempt, for a closer look. */
export async function writeViolations(file: string, result: SoakResult): Promise<void> {
  const attempts = result.verdict.violations
    .map((v) => result.journal.attempts.get(v.subject))
    .filter((a) => a !== undefined);
  await writeFile(
    file,
    JSON.stringify({ seed: result.options.seed, violations: result.verdict.violations, attempts }, null, 2) + "\n",
  );
}

/** Each violation with its attempt's id and what its shopper saw. */
export function violationReport(violations: Violation[], attempts: Map<string, AttemptLog>, limit = 50): string {
  const lines = violations.slice(0, limit).map((v) => {
    const attempt = attempts.get(v.subject);
    const seen = attempt
      ? `\n      ${attempt.card} ${attempt.amountCents}¢ [${attempt.behaviours.join(", ")}] → ${attempt.outcome}; answers: ` +
        attempt.answers.map((a) => `${a.method} ${a.status ?? a.error}${a.replayed ? " (replay)" : ""}`).join(", ")
      : "";
    return `  ${INVARIANTS[v.invariant]}\n    ${v.subject}: ${v.evidence}${seen}`;
  });
  if (violations.length > limit) lines.push(`  … and ${violations.length - limit} more`);
  return lines.join("\n");
}

function sortByCount(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([, a], [, b]) => b - a));
}
