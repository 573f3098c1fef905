import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatReport, runConformance, type Target } from "@checkout/conformance";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { freePort } from "./app-server";
import { createOwnDatabase, type OwnDatabase } from "./helpers/own-database";

/**
 * What a team adopting the engine gets: `npm pack` of packages/idempotency,
 * installed into a minimal Next.js app made in a temporary folder (next,
 * react and pg linked from this project's node_modules, so it runs offline),
 * one route wrapped by the package's Next.js adapter, built and started; the
 * conformance kit passes against it, a crash mid-effect included.
 */
const execFileAsync = promisify(execFile);
/** Runs a command; a failure carries its output, where `next build` says what is wrong. */
const run = (command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileAsync(command, args, options).catch((error: { message: string; stdout?: string; stderr?: string }) => {
    throw new Error(`${error.message}\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
  });
const root = path.resolve(import.meta.dirname, "..");
const PACKAGE = path.join(root, "packages/idempotency");

/**
 * The app's files. The route's effect is a row in `effects`, held in flight by
 * a gate in the server's memory (`/api/gate`) so the kit can lose an answer or
 * kill the server mid-effect; `/api/effects` counts the rows.
 */
const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "adopter", private: true, type: "module" }),
  "next.config.mjs": `export default { transpilePackages: ["@checkout/idempotency"] };\n`,
  "tsconfig.json": JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      lib: ["dom", "esnext"],
      module: "esnext",
      moduleResolution: "bundler",
      strict: true,
      jsx: "react-jsx",
      noEmit: true,
      skipLibCheck: true,
      isolatedModules: true,
      esModuleInterop: true,
      plugins: [{ name: "next" }],
    },
    include: ["**/*.ts", "**/*.tsx"],
  }),
  "app/layout.tsx": `export default function Layout({ children }: { children: React.ReactNode }) {
  return <html><body>{children}</body></html>;
}\n`,
  "app/db.ts": `import pg from "pg";
export const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 5 });
type Gate = { closed: boolean; waiting: Array<() => void> };
const g = globalThis as unknown as { gate?: Gate };
export const gate: Gate = (g.gate ??= { closed: false, waiting: [] });
`,
  // The README's front door: a running attempt's duplicates skip Next.js; /api/door counts them.
  "instrumentation.ts": `export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installFrontDoor } = await import("@checkout/idempotency/front-door");
  installFrontDoor();
}\n`,
  "app/api/door/route.ts": `import { frontDoorAnswers } from "@checkout/idempotency/front-door";
export const dynamic = "force-dynamic";
export async function GET() { return Response.json({ answered: frontDoorAnswers() }); }\n`,
  "app/api/gate/route.ts": `import { gate } from "../../db";
export async function GET() { return Response.json({ held: gate.waiting.length }); }
export async function POST(request: Request) {
  const { closed } = (await request.json()) as { closed: boolean };
  gate.closed = closed;
  if (!closed) gate.waiting.splice(0).forEach((go) => go());
  return Response.json({ closed });
}\n`,
  "app/api/effects/route.ts": `import { pool } from "../../db";
export const dynamic = "force-dynamic";
export async function GET() {
  const { rows } = await pool.query("select count(*)::int as n from effects");
  return Response.json({ effects: rows[0].n });
}\n`,
  // The adapter wraps the route; the effect is idempotent by the attempt's derived id, as a provider call's key would be.
  "app/api/pay/route.ts": `import { IdempotencyEngine, pgDatabase } from "@checkout/idempotency";
import { frontDoorRoute } from "@checkout/idempotency/front-door";
import { withIdempotency } from "@checkout/idempotency/next";
import { gate, pool } from "../../db";

const engine = new IdempotencyEngine(pgDatabase(pool), {
  inProgressTtlMs: 5000,
  retentionHours: 24,
  attemptDeadlineMs: 600000,
});
type Body = { items: Array<{ sku: string; quantity: number }>; method: string };

export const POST = withIdempotency<Body>(
  {
    engine,
    endpoint: "POST /api/pay",
    subject: (request) => /sid=([0-9a-f-]{36})/.exec(request.headers.get("cookie") ?? "")?.[1] ?? null,
    parse: (json) => ({ ok: true, value: json as Body }),
  },
  async ({ body, attemptId }) => {
    if (gate.closed) await new Promise<void>((go) => gate.waiting.push(go));
    const { rows } = await pool.query(
      "insert into effects (key) values ($1) on conflict (key) do update set key = excluded.key returning id",
      [attemptId],
    );
    return { status: 201, body: { order: rows[0].id, items: body.items.length, method: body.method } };
  },
);
frontDoorRoute({ path: "/api/pay", endpoint: "POST /api/pay", handler: POST, maxBodyBytes: 16384 });
`,
};

let dir: string | undefined;
let db: OwnDatabase | undefined;
let app: AppProcess | undefined;
let port = 0;
let appEnv: Record<string, string> = {};

describe("@checkout/idempotency installed from its tarball into a fresh Next.js app", () => {
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "adopter-"));
    const { stdout } = await run("npm", ["pack", "--pack-destination", dir, "--json"], { cwd: PACKAGE });
    const tarball = path.join(dir, (JSON.parse(stdout) as Array<{ filename: string }>)[0]!.filename);
    for (const [file, text] of Object.entries(FILES)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    const installed = path.join(dir, "node_modules/@checkout/idempotency");
    await mkdir(installed, { recursive: true });
    await run("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
    expect(await readdir(installed)).toContain("package.json");
    // Linked, not downloaded: the project's own copies, so the test runs offline.
    for (const name of ["next", "react", "react-dom", "pg", "@types/pg", "@types/react", "@types/node", "typescript"]) {
      await mkdir(path.dirname(path.join(dir, "node_modules", name)), { recursive: true });
      await symlink(path.join(root, "node_modules", name), path.join(dir, "node_modules", name));
    }
    db = await createOwnDatabase("adopter");
    const { Client } = (await import("pg")).default;
    const client = new Client({ connectionString: db.url });
    await client.connect();
    const { MIGRATION_SQL } = (await import(path.join(PACKAGE, "src/migration.ts"))) as { MIGRATION_SQL: string };
    await client.query(`drop table if exists idempotency_keys cascade; drop type if exists idempotency_status;`);
    await client.query(MIGRATION_SQL);
    await client.query("create table effects (id serial primary key, key text not null unique)");
    await client.end();
    // Webpack follows the linked packages out of the folder; Turbopack refuses links outside its root.
    await run(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build", "--webpack"], {
      cwd: dir,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
    });
    port = await freePort();
    appEnv = { DATABASE_URL: db.url };
    app = await startIn(dir);
  }, 600_000);
  afterAll(async () => {
    await app?.stop();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** startApp runs `next start` in the current folder: the adopter's app is its own. */
  async function startIn(folder: string): Promise<AppProcess> {
    const cwd = process.cwd();
    process.chdir(folder);
    try {
      return await startApp({ port, env: appEnv });
    } finally {
      process.chdir(cwd);
    }
  }

  it("passes the kit, crash included", async () => {
    const base = `http://localhost:${port}`;
    const json = async (pathname: string, init?: RequestInit) =>
      (await (await fetch(`${base}${pathname}`, init)).json()) as Record<string, number>;
    const setGate = (closed: boolean) =>
      json("/api/gate", { method: "POST", body: JSON.stringify({ closed }) }).then(() => undefined);
    let alive = true;
    let answeredByDoor = 0;
    const killed: number[] = [];
    const body = (quantity = 1, method = "visa") => ({ items: [{ sku: "tee", quantity }], method });
    const target: Target = {
      name: "adopter",
      url: `${base}/api/pay`,
      subject: async () => ({ cookie: `sid=${crypto.randomUUID()}` }),
      bodies: { base: () => body(), nestedChange: () => body(2), topLevelChange: () => body(1, "mastercard") },
      effects: async () => (await json("/api/effects")).effects!,
      hold: {
        close: () => setGate(true),
        held: async () => {
          while ((await json("/api/gate")).held! < 1) await new Promise((resolve) => setTimeout(resolve, 20));
        },
        // The gate lives in the server's memory: once the server is killed, it died with it.
        open: async () => (alive ? setGate(false) : undefined),
      },
      restart: {
        stop: async () => {
          answeredByDoor = (await json("/api/door")).answered!;
          alive = false;
          killed.push(app!.pid);
          await app!.stop("SIGKILL");
        },
        start: async () => {
          app = await startIn(dir!);
          alive = true;
        },
      },
      settleMs: 60_000,
    };
    const report = await runConformance(target);
    expect(
      report.checks.filter((c) => !c.pass).map((c) => c.name),
      formatReport(report),
    ).toEqual([]);
    expect(report.checks.map((c) => c.name)).toContain("crash.one-effect");
    // The storm's duplicates of the held attempt reached the handler before Next.js (counted before the kill).
    expect(answeredByDoor).toBeGreaterThan(0);
    expect(killed).toHaveLength(1); // the server really died mid-effect
    expect(app!.pid).not.toBe(killed[0]);
  });
});
