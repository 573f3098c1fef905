import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SESSION_TTL_SECONDS } from "../lib/session";
import { startStripeEmulator, type StripeEmulator } from "../scripts/stripe-emulator/server";
import { freePort, TEST_SESSION_SECRET } from "./app-server";
import { TEST_DIST_DIR } from "./constants";

/**
 * `npm start` (scripts/start.ts) as an operator runs it, against the test
 * database and an emulator. Without SESSION_SECRET it must refuse to start:
 * a secret invented per host makes every other request 401 behind a load
 * balancer. Only the demo generates one.
 */
let emulator: StripeEmulator;
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
});
afterAll(async () => {
  await emulator?.close();
});

const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");

/** `npm start`, or with `bare` the production server alone (`next start`, as a container might run it). */
async function runStart(env: Record<string, string>, options: { bare?: boolean } = {}) {
  const dataDir = await mkdtemp(path.join(tmpdir(), "start-data-"));
  const port = await freePort();
  const { SESSION_SECRET: _inherited, ...parentEnv } = process.env;
  const args = options.bare
    ? [nextBin, "start", "-p", String(port)]
    : ["--import", "tsx", "--import", "./scripts/lib/allow-server-only.mjs", "scripts/start.ts"]; // as `npm start` runs it
  const child = spawn(process.execPath, args, {
    env: {
      ...parentEnv,
      DATABASE_URL: inject("databaseUrl"),
      DATA_DIR: dataDir,
      PORT: String(port),
      STRIPE_SECRET_KEY: "sk_test_emulator",
      STRIPE_API_BASE: emulator.url,
      NEXT_DIST_DIR: TEST_DIST_DIR,
      ...(options.bare ? { NODE_ENV: "production" } : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c));
  child.stderr.on("data", (c: Buffer) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  /** Resolves with "ready" or the exit code, whichever comes first. */
  const outcome = new Promise<"ready" | number | null>((resolve) => {
    const timer = setInterval(() => {
      if (output.includes("[start] Ready on")) resolve("ready");
    }, 100);
    void exited.then((code) => resolve(code)).finally(() => clearInterval(timer));
  });
  return { child, exited, outcome, dataDir, url: `http://localhost:${port}`, output: () => output };
}

describe("npm start", () => {
  it("refuses to start without SESSION_SECRET, naming the variable, and generates none", async () => {
    const start = await runStart({});
    try {
      expect(await start.outcome, start.output()).toBe(1);
      expect(start.output()).toContain("SESSION_SECRET: required by npm start");
      expect(existsSync(path.join(start.dataDir, "session-secret"))).toBe(false);
      await expect(fetch(`${start.url}/api/health/live`)).rejects.toThrow(); // nothing listens
    } finally {
      start.child.kill("SIGTERM"); // only if it started after all
      await start.exited;
    }
  });

  it("and the production server alone refuses too, instead of answering every request with 500", async () => {
    const start = await runStart({}, { bare: true });
    try {
      expect(await start.outcome, start.output()).toBe(1);
      expect(start.output()).toContain("SESSION_SECRET: required in production");
    } finally {
      start.child.kill("SIGTERM");
      await start.exited;
    }
  });

  it("starts with it, and seals sessions for as long as their cookie lives", async () => {
    const start = await runStart({ SESSION_SECRET: TEST_SESSION_SECRET });
    try {
      expect(await start.outcome, start.output()).toBe("ready");
      const before = Date.now();
      const response = await fetch(`${start.url}/api/session`, { method: "POST" });
      expect(response.status).toBe(201);
      const cookie = response.headers.getSetCookie()[0] ?? "";
      const maxAge = Number(/Max-Age=(\d+)/i.exec(cookie)?.[1]);
      // An iron seal carries its own expiry (ms since the epoch) as its sixth field.
      const seal = decodeURIComponent(/^checkout_session=([^;]+)/.exec(cookie)?.[1] ?? "");
      const sealExpiresAt = Number(seal.split("*")[5]);
      expect(maxAge).toBe(SESSION_TTL_SECONDS - 60); // the cookie goes a minute before its seal
      expect(sealExpiresAt - before).toBeGreaterThanOrEqual(SESSION_TTL_SECONDS * 1000 - 5_000);
      expect(sealExpiresAt - before).toBeLessThanOrEqual(SESSION_TTL_SECONDS * 1000 + 5_000);
    } finally {
      start.child.kill("SIGTERM");
      await start.exited;
    }
  });
});
