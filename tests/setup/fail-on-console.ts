import { afterEach, beforeEach, vi } from "vitest";
import { recordConsole, takeConsoleProblems, type ConsoleLevel } from "@/tests/helpers/console";

/**
 * A test that logs console.error or console.warn fails, unless it expected to
 * (`expectConsole` in tests/helpers/console.ts): a warning nobody reads is a
 * defect that has not been found yet. The message is still printed.
 */
const levels: ConsoleLevel[] = ["error", "warn"];

beforeEach(() => {
  takeConsoleProblems(); // anything logged between tests (hooks of the file) starts no test off failing
  for (const level of levels) {
    const original = console[level].bind(console);
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      recordConsole(level, args);
      original(...args);
    });
  }
});

afterEach(() => {
  for (const level of levels) vi.mocked(console[level]).mockRestore();
  const problems = takeConsoleProblems();
  if (problems.length > 0) throw new Error(problems.join("\n"));
});
