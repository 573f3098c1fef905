import { existsSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { removeScratchDir, scratchDir } from "./scratch";

// The tests run in order: each later one looks at what the earlier one left.
describe("scratchDir", () => {
  let passed = "";
  let failed = "";

  it("makes a folder everyone can enter", async () => {
    passed = await scratchDir("scratch-passed-");
    expect(statSync(passed).mode & 0o777).toBe(0o755);
  });

  it("removed the folder of the test that passed", () => {
    expect(passed).not.toBe("");
    expect(existsSync(passed)).toBe(false);
  });

  it.fails("(a test that fails on purpose, after making a folder)", async () => {
    failed = await scratchDir("scratch-failed-");
    expect(failed).toBe("");
  });

  it("kept the folder of the test that failed, to be looked at", async () => {
    expect(failed).not.toBe("");
    expect(existsSync(failed)).toBe(true);
    await removeScratchDir(failed);
    expect(existsSync(failed)).toBe(false);
  });
});
