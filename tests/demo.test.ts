import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./app-server";
import { TEST_DIST_DIR } from "./constants";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { scratchDir } from "./helpers/scratch";
import { cart, newKey, Shopper, waitFor } from "./helpers/shopper";

/**
 * `npm run demo` as a newcomer runs it: a fresh DATA_DIR (embedded database
 * initialised from nothing), its own ports, the test build. It must serve the
 * catalogue, stop everything on SIGTERM, and reuse its data the second time.
 */
let ports = { app: 0, pg: 0, emulator: 0 };
beforeAll(async () => {
  ports = { app: await freePort(), pg: await freePort(), emulator: await freePort() };
});

function runDemo(dataDir: string) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--import", "./scripts/lib/allow-server-only.mjs", "scripts/demo.ts", "--no-build"],
    {
      env: {
        ...process.env,
        DATABASE_URL: "", // the demo's default: embedded
        DATA_DIR: dataDir,
        PORT: String(ports.app),
        EMBEDDED_PG_PORT: String(ports.pg),
        STRIPE_EMULATOR_PORT: String(ports.emulator),
        NEXT_DIST_DIR: TEST_DIST_DIR,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c));
  child.stderr.on("data", (c: Buffer) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes("Ready: open")) resolve();
    }, 100);
    void exited.then(() => reject(new Error(`demo exited early:\n${output}`))).finally(() => clearInterval(timer));
  });
  return { child, exited, ready, output: () => output };
}

function postgresRunning(dataDir: string): boolean {
  const pidFile = path.join(dataDir, "postgres", "postmaster.pid");
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("npm run demo", () => {
  it("serves the catalogue from a fresh embedded database, stops cleanly on SIGTERM, and reuses its data", async () => {
    const dataDir = await scratchDir("demo-data-");

    const first = runDemo(dataDir);
    await first.ready;
    expect(first.output()).toMatch(/migrations [1-9]\d* applied · catalogue 6 products/);
    const page = await fetch(`http://localhost:${ports.app}/`);
    expect(await page.text()).toContain("Classic Tee");
    const health = await fetch(`http://localhost:${ports.app}/api/health`);
    expect(await health.json()).toEqual({ ok: true, db: true, payments: true });
    expect(postgresRunning(dataDir)).toBe(true);

    // The emulator tells the app about the payment, signed with the app's secret (a 400 would count as failed).
    const webhooks = new EmulatorClient(`http://127.0.0.1:${ports.emulator}`);
    expect((await webhooks.webhookSnapshot()).url).toBe(`http://localhost:${ports.app}/api/webhooks/stripe`);
    const shopper = await Shopper.arrive(`http://localhost:${ports.app}`);
    expect((await shopper.checkout(newKey(), cart())).status).toBe(201);
    const delivered = await waitFor("the payment's events to be delivered", async () => {
      const { stats } = await webhooks.webhookSnapshot();
      return stats.delivered >= 2 && stats.pending === 0 ? stats : null;
    });
    expect(delivered).toMatchObject({ failedAttempts: 0 });
    // ...with a secret the demo generated for itself, as it does its session secret, kept beside its data.
    expect(readFileSync(path.join(dataDir, "webhook-secret"), "utf8")).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(readFileSync(path.join(dataDir, "session-secret"), "utf8")).toMatch(/^[0-9a-f]{64}$/);
    // The operator's page is served, and the demo says how to sign in to it.
    const opsToken = readFileSync(path.join(dataDir, "ops-token"), "utf8");
    expect(opsToken).toMatch(/^[0-9a-f]{64}$/);
    expect(first.output()).toContain(
      `The operator's page: http://localhost:${ports.app}/ops · sign in with the token in ${path.join(dataDir, "ops-token")}`,
    );
    expect((await fetch(`http://localhost:${ports.app}/ops`)).status).toBe(200);
    const findings = await fetch(`http://localhost:${ports.app}/api/ops/findings`, {
      headers: { Authorization: `Bearer ${opsToken}` },
    });
    expect(findings.status).toBe(200);
    const charged = await webhooks.ledger();
    expect(charged.map((pi) => pi.status)).toEqual(["succeeded"]);

    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(postgresRunning(dataDir)).toBe(false);
    await expect(fetch(`http://localhost:${ports.app}/api/health`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${ports.emulator}/_emulator/faults`)).rejects.toThrow();

    const second = runDemo(dataDir);
    await second.ready;
    expect(second.output()).toMatch(/migrations 0 applied/);
    // The emulator kept its ledger beside the database's orders, as Stripe keeps an account's.
    expect(second.output()).toContain(`its ledger kept in ${path.resolve(dataDir, "stripe-emulator.state")}`);
    expect(await webhooks.ledger()).toEqual(charged);
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
    expect(postgresRunning(dataDir)).toBe(false);
  }, 240_000); // two cold starts of a database and a server: minutes on a loaded machine

  it.each([
    ["PORT", "the app's port"],
    ["STRIPE_EMULATOR_PORT", "the emulator's port"],
    ["EMBEDDED_PG_PORT", "the embedded database's port"],
  ])(
    "refuses a taken %s (%s) in one line naming it, and leaves nothing running",
    async (variable) => {
      const dataDir = await scratchDir("demo-taken-");
      const holder = createServer();
      const port = await freePort();
      await new Promise<void>((resolve) => holder.listen(port, resolve));
      try {
        const taken = {
          PORT: ports.app,
          STRIPE_EMULATOR_PORT: ports.emulator,
          EMBEDDED_PG_PORT: ports.pg,
          [variable]: port,
        };
        const child = spawn(
          process.execPath,
          ["--import", "tsx", "--import", "./scripts/lib/allow-server-only.mjs", "scripts/demo.ts", "--no-build"],
          {
            env: {
              ...process.env,
              DATABASE_URL: "",
              DATA_DIR: dataDir,
              NEXT_DIST_DIR: TEST_DIST_DIR,
              ...Object.fromEntries(Object.entries(taken).map(([k, v]) => [k, String(v)])),
            },
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        let stderr = "";
        child.stderr.on("data", (c: Buffer) => (stderr += c));
        expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(1);
        expect(stderr.trim().split("\n")).toEqual([
          expect.stringMatching(
            new RegExp(`^${variable}: port ${port} is already in use.*set ${variable} to a free port`),
          ),
        ]);
        expect(postgresRunning(dataDir)).toBe(false);
      } finally {
        holder.close();
      }
    },
    60_000,
  );

  it("refuses a database that does not answer in one line naming DATABASE_URL", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--import", "./scripts/lib/allow-server-only.mjs", "scripts/demo.ts", "--no-build"],
      {
        env: { ...process.env, DATABASE_URL: "postgresql://nobody@127.0.0.1:9/shop", PORT: String(ports.app) },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(1);
    expect(stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^DATABASE_URL: PostgreSQL at 127\.0\.0\.1:9\/shop does not answer/),
    ]);
  });

  it("refuses a malformed DATABASE_URL with a message naming it", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--import", "./scripts/lib/allow-server-only.mjs", "scripts/demo.ts", "--no-build"],
      {
        env: { ...process.env, DATABASE_URL: "localhost:5432/shop" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/);
  });
});
