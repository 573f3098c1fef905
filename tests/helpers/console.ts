/**
 * Every test fails when it writes to console.error or console.warn
 * (tests/setup/fail-on-console.ts), unless it said it would with
 * `expectConsole`: then the message must come, and it does not fail the test.
 */
export type ConsoleLevel = "error" | "warn";

interface Expectation {
  level: ConsoleLevel;
  pattern: RegExp;
  seen: number;
}

interface Call {
  level: ConsoleLevel;
  text: string;
}

const state: { expectations: Expectation[]; calls: Call[] } = { expectations: [], calls: [] };

/** This test will log `pattern` at `level`; the test fails if it never does. */
export function expectConsole(level: ConsoleLevel, pattern: RegExp | string): void {
  const regexp = typeof pattern === "string" ? new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) : pattern;
  state.expectations.push({ level, pattern: regexp, seen: 0 });
}

/** For the setup file: record one call. */
export function recordConsole(level: ConsoleLevel, args: unknown[]): void {
  const text = args.map((arg) => (arg instanceof Error ? (arg.stack ?? arg.message) : String(arg))).join(" ");
  state.calls.push({ level, text });
}

/** For the setup file: what went wrong in the test that just ended, then a clean slate for the next one. */
export function takeConsoleProblems(): string[] {
  const problems: string[] = [];
  for (const call of state.calls) {
    const expected = state.expectations.find((e) => e.level === call.level && e.pattern.test(call.text));
    if (expected) expected.seen += 1;
    else problems.push(`unexpected console.${call.level}: ${call.text}`);
  }
  for (const e of state.expectations) {
    if (e.seen === 0) problems.push(`expected console.${e.level} matching ${e.pattern} was never logged`);
  }
  state.expectations = [];
  state.calls = [];
  return problems;
}
