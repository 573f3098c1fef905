import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { HANDLED_EVENT_TYPES } from "@/lib/webhooks/process";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { freePort } from "./app-server";
import { TEST_DIST_DIR } from "./constants";
import { runLabScenarios } from "./helpers/lab-runs";
import { makeScratchDir, removeScratchDir } from "./helpers/scratch";
import { waitFor } from "./helpers/shopper";

/**
 * The demo tells the truth: every scenario of the lab run in Chromium, the
 * demo stopped and started again on its DATA_DIR, and `npm run audit` finds
 * the shop and Stripe in agreement (exit 0, no finding), while neither run of
 * the demo logged an error — no tamper alarm for the lab's own intents, no
 * crash for the 503 scenario — though its events catch-up, which judges every
 * success it reads, ran after the last scenario.
 */
let dataDir = "";
let passed = false;
afterAll(async () => {
  if (passed) await removeScratchDir(dataDir); // otherwise the demo's database and log stay to be looked at
});

describe("the demo restarted on its data after every lab scenario", () => {
  it("is audited clean, and logged no error", async () => {
    dataDir = await makeScratchDir("demo-restart-");
    const ports = { app: await freePort(), pg: await freePort(), emulator: await freePort() };
    const env = {
      DATABASE_URL: "", // the demo's default: embedded
      DATA_DIR: dataDir,
      PORT: String(ports.app),
      EMBEDDED_PG_PORT: String(ports.pg),
      STRIPE_EMULATOR_PORT: String(ports.emulator),
      NEXT_DIST_DIR: TEST_DIST_DIR,
      MAINTENANCE_INTERVAL_MS: "1000",
      EVENTS_CATCH_UP_INTERVAL_MS: "2000",
    };
    const app = `http://localhost:${ports.app}`;
    const emulator = new EmulatorClient(`http://127.0.0.1:${ports.emulator}`);
    const databaseUrl = `postgresql://postgres:postgres@127.0.0.1:${ports.pg}/checkout`;

    const first = await startDemo(env);
    await runLabScenarios(app);
    const charged = await emulator.ledger();
    expect(charged.filter((pi) => pi.metadata.lane === "naive").length).toBeGreaterThan(0);
    // The catch-up has read up to the last event the scenarios made, judging each success on the way.
    const stripe = createStripeClient({ secretKey: "sk_test_emulator", apiBase: emulator.url });
    const newest = (await stripe.events.list({ types: HANDLED_EVENT_TYPES, limit: 1 })).data[0]!.id;
    await waitFor(
      "the events catch-up to reach the last event",
      async () => ((await catchUpCursor(databaseUrl)) === newest ? true : null),
      120_000,
      250,
    );
    await waitFor("every event delivered", async () => {
      const { stats } = await emulator.webhookSnapshot();
      return stats.pending === 0 ? true : null;
    });
    expect(await first.stop()).toBe(0);

    const second = await startDemo(env);
    try {
      expect(await emulator.ledger()).toEqual(charged);
      const audit = await runAudit({
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        STRIPE_EMULATOR_PORT: String(ports.emulator),
        SESSION_SECRET: readFileSync(path.join(dataDir, "session-secret"), "utf8").trim(),
      });
      expect(audit.code, audit.stderr).toBe(0);
      const report = JSON.parse(audit.stdout) as { intents: number; counts: Record<string, number>; findings: unknown };
      expect(report.findings).toEqual([]);
      expect(Object.values(report.counts).every((n) => n === 0)).toBe(true);
      // Every charge of the demo is the shop's to account for, the lab's naive lane's included.
      expect(report.intents).toBe(charged.length);
    } finally {
      expect(await second.stop()).toBe(0);
    }
    for (const output of [first.output(), second.output()])
      expect(output.split("\n").filter((line) => /"level":(50|60)|⨯|^\s+at /.test(line))).toEqual([]);
    passed = true;
  }, 420_000); // two cold starts of a database and a server, and five lab runs, on a loaded machine
});

async function catchUpCursor(databaseUrl: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ event_id: string | null }>(
      "select event_id from provider_cursors where name = 'events'",
    );
    return rows[0]?.event_id ?? null;
  } finally {
    await client.end();
  }
}

/** `npm run audit -- --json` against the running demo's database and emulator. */
function runAudit(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--import", "./scripts/lib/allow-server-only.mjs", "scripts/audit.ts", "--json"],
    { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c));
  child.stderr.on("data", (c: Buffer) => (stderr += c));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("exit", (code) => resolve({ code, stdout, stderr })),
  );
}

async function startDemo(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--import", "./scripts/lib/allow-server-only.mjs", "scripts/demo.ts", "--no-build"],
    { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c));
  child.stderr.on("data", (c: Buffer) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (!output.includes("Ready: open")) return;
      clearInterval(timer);
      resolve();
    }, 100);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`demo exited early:\n${output}`));
    });
  });
  return {
    output: () => output,
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}
