import { describe, expect, it } from "vitest";
import { expectConsole, recordConsole, takeConsoleProblems } from "./console";

// The bookkeeping behind tests/setup/fail-on-console.ts, driven by hand.
describe("console expectations", () => {
  it("reports a console.error nobody expected", () => {
    takeConsoleProblems();
    recordConsole("error", ["boom", new Error("why")]);
    expect(takeConsoleProblems()).toEqual([expect.stringMatching(/^unexpected console\.error: boom Error: why/)]);
  });

  it("accepts an expected warning and reports an expected one that never came", () => {
    takeConsoleProblems();
    expectConsole("warn", "slow (1.5 s)");
    expectConsole("error", /never/);
    recordConsole("warn", ["gateway slow (1.5 s)"]);
    expect(takeConsoleProblems()).toEqual(["expected console.error matching /never/ was never logged"]);
  });

  it("lets a test that expects a message log it through the real console", () => {
    expectConsole("warn", /through the setup file/);
    console.warn("logged through the setup file on purpose");
  });
});
