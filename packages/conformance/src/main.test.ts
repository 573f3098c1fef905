import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/** `npm run conformance` refuses what it cannot run in one line naming what to change, exit 1. */
const main = fileURLToPath(new URL("./main.ts", import.meta.url));

async function conformance(...args: string[]) {
  return promisify(execFile)(process.execPath, ["--import", "tsx", main, ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe("npm run conformance", () => {
  it("refuses a target it does not know", async () => {
    const run = await conformance("--target", "bogus");
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n")[0]).toBe("--target must be one of: checkout, naive");
  });

  it("refuses a shop it cannot reach, naming --url", async () => {
    // Port 1 (tcpmux) is not served here: the connection is refused at once.
    const run = await conformance("--target", "checkout", "--url", "http://127.0.0.1:1");
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n")[0]).toBe(
      "Cannot reach the shop at http://127.0.0.1:1: start it (npm run demo) or pass --url.",
    );
    expect(run.stdout).toBe("");
  });
});
