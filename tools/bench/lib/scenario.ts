import type { CpuMeters } from "./cpu";
import type { Measure } from "./measure";
import type { Sizes } from "./options";

/**
 * What every scenario gets and gives back. A goal is always a ratio of two
 * figures measured in the same run, so the machine's speed cancels out.
 */
export interface BenchContext {
  sizes: Sizes;
  appUrl: string;
  emulatorUrl: string;
  databaseUrl: string;
  cpu: CpuMeters;
  /** Round trips the app sent to PostgreSQL so far (counted on the wire). */
  appRoundTrips(): number;
  log(line: string): void;
}

export interface Goal {
  /** e.g. "409 p99 ÷ products p99" */
  ratio: string;
  value: number;
  op: "<=" | ">=";
  target: number;
  pass: boolean;
}

export interface ScenarioResult {
  measures: Record<string, Measure>;
  /** Figures that are not latencies (statement counts, rows, seconds). */
  figures?: Record<string, number>;
  goals: Goal[];
  notes: string[];
}

export interface Scenario {
  name: string;
  title: string;
  run(ctx: BenchContext): Promise<ScenarioResult>;
}

export function goal(ratio: string, value: number, op: Goal["op"], target: number): Goal {
  const rounded = Math.round(value * 100) / 100;
  return { ratio, value: rounded, op, target, pass: op === "<=" ? value <= target : value >= target };
}
