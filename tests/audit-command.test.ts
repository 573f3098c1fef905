import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditReport } from "@/lib/audit/findings";
import { takeAuditLease } from "@/lib/audit/schedule";
import { TEST_SESSION_SECRET } from "./app-env";
import { TEST_SHOP_ID } from "./helpers/identity";
import { seedCleanDay, seedThreeWrongs, startAuditShop, type AuditShop } from "./helpers/audit-shop";

/** `npm run audit` as an operator runs it: the table, `--json`, and its exit code. */
const KEY = "sk_test_audit_command";
let shop: AuditShop;
beforeAll(async () => {
  shop = await startAuditShop("auditcommand", KEY);
});
afterAll(() => shop.close());

async function audit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--import", "./scripts/lib/allow-server-only.mjs", "scripts/audit.ts", ...args],
    {
      env: {
        ...process.env,
        DATABASE_URL: shop.database.url,
        STRIPE_SECRET_KEY: KEY,
        STRIPE_API_BASE: shop.emulator.url,
        // The shop the seeded intents name and sign (tests/helpers/identity.ts).
        SHOP_ID: TEST_SHOP_ID,
        SESSION_SECRET: TEST_SESSION_SECRET,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c));
  child.stderr.on("data", (c: Buffer) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, stdout, stderr };
}

describe("npm run audit", () => {
  it("prints zero findings and exits 0 on a clean day; names the three wrongs and exits 1 once they happen", async () => {
    await seedCleanDay(shop);
    const clean = await audit(["--since", "1h"]);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toMatch(/3 PaymentIntents of this shop/);
    expect(clean.stdout).toMatch(/0 findings: the shop and Stripe agree\./);

    const { behind, owed, eventId } = await seedThreeWrongs(shop);
    const json = await audit(["--since", "1h", "--json"]);
    expect(json.code, json.stderr).toBe(1);
    const report = JSON.parse(json.stdout) as AuditReport;
    expect(Object.keys(report).sort()).toEqual(["counts", "findings", "intents", "window"]);
    expect(report.findings.map((f) => f.kind).sort()).toEqual([
      "charge_without_order",
      "event_not_processed",
      "refund_failed",
    ]);
    expect(report.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "charge_without_order", paymentIntentIds: [behind.id] }),
        expect.objectContaining({ kind: "refund_failed", orderId: owed.orderId, amountCents: 1_800 }),
        expect.objectContaining({ kind: "event_not_processed", eventId }),
      ]),
    );
    const table = await audit(["--since", "1h"]);
    expect(table.code).toBe(1);
    expect(table.stdout).toContain(`https://dashboard.stripe.com/test/payments/${behind.id}`);
    expect(table.stdout).toMatch(/refund_failed +1 +money is wrong/);
  }, 300_000);

  it("runs one at a time across the fleet: another's run refuses it in one line, exit 2; its own lease goes with it", async () => {
    const other = await takeAuditLease(shop.prisma); // as an app instance's scheduled audit holds it
    if ("heldUntil" in other) throw new Error("the audit's lease is already held");
    try {
      const refused = await audit(["--since", "1h", "--json"]);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe("");
      expect(refused.stderr.trim().split("\n")).toEqual([
        expect.stringMatching(/^npm run audit: another audit is running .* its lease held until \d{4}-/),
      ]);
    } finally {
      await other.release();
    }
    const ran = await audit(["--since", "1h", "--json"]);
    expect(ran.stderr).not.toMatch(/another audit is running/);
    expect(await shop.prisma.lease.count({ where: { name: "audit" } })).toBe(0); // given back when it ended
  }, 120_000);

  it("refuses a window it cannot read in one line, exit 2", async () => {
    const refused = await audit(["--since", "yesterday"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^--since: a duration like 90m, 24h or 7d, got yesterday\n/);
  }, 120_000);
});
