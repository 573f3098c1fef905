import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { establishShopIdentity } from "@/lib/shop-identity";
import { createOwnDatabase, type OwnDatabase } from "./helpers/own-database";

/**
 * The scripts cron and operators run against a production database refuse,
 * in one line naming SHOP_ID, when the database names no shop and none is
 * given, or when the one given is another shop's: a reconciler that judged
 * the shop's intents another's would record "nothing was charged".
 */
let unnamed: OwnDatabase;
let named: OwnDatabase;
beforeAll(async () => {
  unnamed = await createOwnDatabase("scriptsunnamed");
  named = await createOwnDatabase("scriptsnamed");
  await establishShopIdentity(named.url, "named-shop", { mayName: false });
});
afterAll(async () => {
  await unnamed?.drop();
  await named?.drop();
});

function run(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--import", "./scripts/lib/allow-server-only.mjs", `scripts/${script}`],
    { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c));
  child.stderr.on("data", (c: Buffer) => (stderr += c));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

describe.each([
  ["reconcile.ts", 1],
  ["audit.ts", 2],
  ["db-cleanup.ts", 1],
])("scripts/%s against a production database", (script, refusedCode) => {
  it("refuses without a shop identity in one line naming SHOP_ID, and names none", async () => {
    const result = await run(script, { DATABASE_URL: unnamed.url, SHOP_ID: "" });
    expect(result.code, result.stderr).toBe(refusedCode);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^SHOP_ID: required: this database names no shop yet; name this shop/),
    ]);
    await expect(establishShopIdentity(unnamed.url, undefined, { mayName: false })).rejects.toThrow(/^SHOP_ID/);
  });

  it("refuses another shop's SHOP_ID in one line", async () => {
    const result = await run(script, { DATABASE_URL: named.url, SHOP_ID: "other-shop" });
    expect(result.code, result.stderr).toBe(refusedCode);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^SHOP_ID: other-shop is not the shop this database belongs to \(named-shop\)/),
    ]);
  });
});
