import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { INVARIANTS, type Invariant, type Violation } from "./checker/invariants";
import type { AttemptLog } from "./journal";
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
}

export function resultsFile(result: SoakResult): ResultsFile {
  return {
    attempts: result.attempts,
    faults: Object.fromEntries([...result.faults].map(([kind, c]) => [kind, c.injected])),
    outcomes: sortByCount(result.outcomes),
    violations: result.verdict.counts,
    convergedInMs: result.convergence.ms,
    failover: failoverTotals(result),
    seed: result.options.seed,
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
  lines.push(
    "",
    result.convergence.converged
      ? `Converged in ${(result.convergence.ms / 1000).toFixed(1)} s after the faults stopped.`
      : `Did NOT converge within ${Math.round(result.convergence.ms / 1000)} s: ${JSON.stringify(result.convergence.open)}`,
  );
  lines.push(`Cards: ${result.cards.join(", ")}.`);
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
