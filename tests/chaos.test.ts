import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FAULT_KINDS } from "@/tools/chaos/faults";
import type { ResultsFile } from "@/tools/chaos/report";
import { freePort } from "./app-server";
import { TEST_DIST_DIR, testEnvironment } from "./constants";
import { scratchDir } from "./helpers/scratch";

/**
 * `npm run chaos` as CI runs it, short: a seeded soak of 100 checkouts through
 * every fault kind, then the checker. And the checker's
 * own test end to end: a deliberately broken build (checkouts routed to the
 * lab's naive endpoint, which has no idempotency at all) must be caught.
 * The soak starts its own instances, emulator and (embedded) database, on the
 * test build.
 */
async function runChaos(args: string[]): Promise<{ code: number | null; output: string; results: ResultsFile }> {
  const dir = await scratchDir("chaos-");
  const out = path.join(dir, "results.json");
  const env = testEnvironment();
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      "./scripts/lib/allow-server-only.mjs",
      "tools/chaos/main.ts",
      "--port",
      String(await freePort(4)), // the proxy, then up to three instances
      "--emulator-port",
      "0",
      "--dist-dir",
      TEST_DIST_DIR,
      "--reuse-build",
      "--out",
      out,
      ...args,
    ],
    {
      env: { ...process.env, DATA_DIR: env.DATA_DIR, EMBEDDED_PG_PORT: String(await freePort(2)) }, // primary, standby
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c));
  child.stderr.on("data", (c: Buffer) => (output += c));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const results = JSON.parse(await readFile(out, "utf8").catch(() => "null")) as ResultsFile;
  if (process.env.CHAOS_TEST_LOG) console.log(output);
  return { code, output, results };
}

describe("the chaos soak", () => {
  it("100 seeded checkouts through every fault kind at once: no invariant violated, every fault kind injected", async () => {
    const { code, output, results } = await runChaos([
      "--attempts",
      "100",
      "--seed",
      "17",
      "--concurrency",
      "10",
      "--fault-rounds",
      "1",
    ]);
    expect(code, output).toBe(0);
    // The 100 seeded checkouts, and two attempts for each second tab the soak opened on a checkout of its own.
    expect(results.attempts).toBeGreaterThanOrEqual(100);
    expect((results.attempts - 100) % 2).toBe(0);
    expect(
      Object.values(results.violations).every((n) => n === 0),
      output,
    ).toBe(true);
    // Every kind of the table runs, and each really happened.
    expect(Object.keys(results.faults).sort()).toEqual(FAULT_KINDS.map((k) => k.name).sort());
    for (const [kind, n] of Object.entries(results.faults)) expect(n, `${kind} was never injected`).toBeGreaterThan(0);
    expect(results.failover.count).toBeGreaterThan(0);
    expect(output).toMatch(/Failovers: \d+, losing \d+ write transactions the standby had not received/);
    expect(results.outcomes.paid).toBeGreaterThan(0);
    expect(output).toMatch(/progress +\d+\/100 attempts done · \d+ faults injected/);
    // Shoppers paid by SEPA Direct Debit (decided on Stripe's clock, which moved) and by iDEAL too.
    expect(Number(/clock +Stripe's clock moved past every debit: (\d+) decided/.exec(output)?.[1])).toBeGreaterThan(0);
    const drawn = (name: string) => Number(new RegExp(`\\b${name} (\\d+)`).exec(output)?.[1] ?? 0);
    expect(drawn("sepa_settles") + drawn("sepa_fails_later"), output).toBeGreaterThan(0);
    expect(drawn("ideal_authorized") + drawn("ideal_failed") + drawn("ideal_never_returns"), output).toBeGreaterThan(0);
    // The operator refunded paid orders in every scenario, and Stripe's refunds bear out every answer it got.
    const operator = results.operatorRefunds;
    expect(operator.stripeRefunds, output).toBeGreaterThan(0);
    for (const [scenario, n] of Object.entries(operator.scenarios))
      expect(n, `${scenario} never played`).toBeGreaterThan(0);
    expect(operator.findings, output).toBe(0);
    expect(operator.finals.none ?? 0, output).toBe(0);
    expect(output).toMatch(/operator +\d+ orders refunded by an operator/);
    // The shop's own audit of the window agrees: no double charge, no money wrong.
    expect(output).toMatch(/audit +agrees with the checker: 0 double charges \(the same attempts\), 0 money findings/);
  }, 360_000);

  it("catches a broken build: checkouts without idempotency charge an attempt twice, and the run exits non-zero naming it", async () => {
    const { code, output, results } = await runChaos([
      "--broken",
      "naive",
      "--instances",
      "1",
      "--attempts",
      "12",
      "--seed",
      "5",
      "--concurrency",
      "6",
      // No fault needed: a shopper's double press alone charges twice without idempotency,
      // and every shopper presses twice, so whichever cards the run draws one is charged twice.
      // They pay as API clients: a ConfirmationToken pays once, so resending one never charges twice.
      "--pay-with",
      "payment-method",
      "--fault-rounds",
      "0",
      "--double-press",
      "100",
      "--converge-timeout",
      "5",
    ]);
    expect(code, output).toBe(1);
    expect(results.violations.one_charge_per_attempt, output).toBeGreaterThan(0);
    // The shop's audit names the same attempts charged twice as the checker.
    const agreed = /audit +agrees with the checker: (\d+) double charges \(the same attempts\)/.exec(output);
    expect(Number(agreed?.[1]), output).toBe(results.violations.one_charge_per_attempt);
    expect(output).toMatch(
      /1 at most one successful charge per attempt\n +[0-9a-f-]{36}: \d+ succeeded PaymentIntents: pi_/,
    );
  }, 300_000);
});
