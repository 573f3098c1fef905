import { describe, expect, it } from "vitest";

// steps.mjs is plain JavaScript, run by node before anything is built; a computed path keeps tsc from asking for its types.
const STEPS = "./steps.mjs";
const { failureLines } = (await import(STEPS)) as { failureLines: (output: string) => string[] };

// What Vitest 4 and Playwright printed for a failing test here (colours kept where Vitest printed them).
const VITEST = [
  " \x1b[31m❯\x1b[39m a.test.ts \x1b[2m(\x1b[22m\x1b[2m2 tests\x1b[22m\x1b[2m | \x1b[22m\x1b[31m1 failed\x1b[39m\x1b[2m)\x1b[22m",
  "     \x1b[31m×\x1b[39m breaks\x1b[32m 49\x1b[2mms\x1b[22m\x1b[39m",
  "     \x1b[32m✓\x1b[39m refuses to start with 32 × a as SESSION_SECRET",
  "Error: the handler failed",
  "    at handler (lib/checkout/route.ts:10:5)",
  "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯",
  "",
  " FAIL  a.test.ts > group > breaks",
  "AssertionError: expected 2 to be 3 // Object.is equality",
  "- Expected",
  "+ Received",
  " ❯ a.test.ts:2:62",
  " Test Files  1 failed (1)",
  "      Tests  1 failed | 1 passed (2)",
].join("\n");

const PLAYWRIGHT = [
  "Running 2 tests using 1 worker",
  "  ✘  1 [chromium] › b.spec.ts:2:1 › a journey that breaks (60ms)",
  "  ✓  2 [chromium] › b.spec.ts:3:1 › a journey that holds (48ms)",
  "  1) [chromium] › b.spec.ts:2:1 › a journey that breaks ─────────────────────────",
  "    Error: expect(received).toBe(expected) // Object.is equality",
  "    Expected: 3",
  "    Error Context: test-results/b-a-journey-that-breaks/error-context.md",
  "  1 failed",
  "  1 passed (7.8s)",
].join("\n");

describe("failureLines", () => {
  it("keeps Vitest's failed file, test and error, without colour, and leaves out passing lines and the tests' logs", () => {
    expect(failureLines(VITEST)).toEqual([
      " ❯ a.test.ts (2 tests | 1 failed)",
      "     × breaks 49ms",
      " FAIL  a.test.ts > group > breaks",
      "AssertionError: expected 2 to be 3 // Object.is equality",
      " Test Files  1 failed (1)",
      "      Tests  1 failed | 1 passed (2)",
    ]);
  });

  it("keeps Playwright's failed journey and its error", () => {
    expect(failureLines(PLAYWRIGHT)).toEqual([
      "  ✘  1 [chromium] › b.spec.ts:2:1 › a journey that breaks (60ms)",
      "  1) [chromium] › b.spec.ts:2:1 › a journey that breaks",
      "    Error: expect(received).toBe(expected) // Object.is equality",
      "  1 failed",
    ]);
  });

  it("says how many more there were past forty lines", () => {
    const lines = failureLines(Array.from({ length: 45 }, (_, i) => ` FAIL  t${i}.test.ts > x`).join("\n"));
    expect(lines).toHaveLength(41);
    expect(lines.at(-1)).toBe("… and 5 more");
  });
});
