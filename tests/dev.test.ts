import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "./app-server";
import { scratchDir } from "./helpers/scratch";

/**
 * `npm run dev` as a contributor runs it: `next dev` (hot reload, compiled on
 * demand) on a fresh embedded database and the emulator, with its own ports
 * and build folder. It must serve the catalogue as a development server, and
 * stop everything on SIGTERM.
 */
const devArgs = ["--import", "tsx", "--import", "./scripts/lib/allow-server-only.mjs", "scripts/dev.ts"];

function postgresRunning(dataDir: string): boolean {
  const pidFile = path.join(dataDir, "postgres", "postmaster.pid");
  if (!existsSync(pidFile)) return false;
  try {
    process.kill(Number(readFileSync(pidFile, "utf8").split("\n")[0]), 0);
    return true;
  } catch {
    return false;
  }
}

describe("npm run dev", () => {
  it("serves the shop from next dev on the embedded database and the emulator, and stops cleanly", async () => {
    const dataDir = await scratchDir("dev-data-");
    const ports = { app: await freePort(), pg: await freePort(), emulator: await freePort() };
    const child = spawn(process.execPath, devArgs, {
      env: {
        ...process.env,
        DATABASE_URL: "",
        DATA_DIR: dataDir,
        PORT: String(ports.app),
        EMBEDDED_PG_PORT: String(ports.pg),
        STRIPE_EMULATOR_PORT: String(ports.emulator),
        NEXT_DIST_DIR: ".next-dev-test",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c));
    child.stderr.on("data", (c: Buffer) => (output += c));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setInterval(() => output.includes("[dev] Ready: open") && resolve(), 200);
        void exited.then(() => reject(new Error(`dev exited early:\n${output}`))).finally(() => clearInterval(timer));
      });
      expect(output).toMatch(/migrations [1-9]\d* applied · catalogue 6 products/);
      expect(output).toMatch(/next dev|Next\.js .*\(Turbopack\)|Ready in/);
      const page = await fetch(`http://localhost:${ports.app}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Classic Tee");
      // A development server: React's dev tooling may eval, which the production CSP never allows.
      expect(page.headers.get("content-security-policy")).toContain("'unsafe-eval'");
      expect(postgresRunning(dataDir)).toBe(true);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(postgresRunning(dataDir)).toBe(false);
    await expect(fetch(`http://localhost:${ports.app}/`)).rejects.toThrow();
  }, 300_000);

  it("refuses a taken PORT in one line naming it", async () => {
    const holder = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, resolve));
    try {
      const child = spawn(process.execPath, devArgs, {
        env: { ...process.env, DATABASE_URL: "", PORT: String(port) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c));
      expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(1);
      expect(stderr.trim().split("\n")).toEqual([
        expect.stringMatching(new RegExp(`^PORT: port ${port} is already in use.*set PORT to a free port`)),
      ]);
    } finally {
      holder.close();
    }
  });
});
