import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { CART, checkoutHeaders, holdAnAttempt } from "../lib/app-client";
import { cpuMeters } from "../lib/cpu";
import { httpLoad, unexpected, type LoadOptions } from "../lib/http-load";
import { Recorder, type Measure } from "../lib/measure";
import { goal, type Scenario } from "../lib/scenario";

/**
 * 30 simultaneous duplicates of a running attempt (`409 in_progress`)
 * against three floors in the same run: the same duplicate answered by the
 * engine's same claim on plain node:http (what the shop and Next.js add
 * together), the cheapest route of the same server, `GET /api/health/live`
 * (what Next.js costs), and the catalogue read (one query through Next.js);
 * beside them, as figures and not goals, the duplicate's own request sent
 * to that route, which has no POST (Next.js's 405: its POST path without a
 * handler), and `health/live` against the plain server (Next.js's own floor).
 * A duplicate is answered before any pricing
 * ([decision 7](../../../docs/decisions/0007-cheap-duplicates.md)); this
 * process runs the held attempt, so from memory
 * ([decision 33](../../../docs/decisions/0033-duplicates-answered-in-process.md)).
 */
const HOLD_MS = 60_000;
const SIMULTANEOUS = 30;

export const duplicates: Scenario = {
  name: "duplicates",
  title: "30 duplicates vs a plain claim server, the cheapest route and catalogue reads",
  async run(ctx) {
    const { appUrl, emulatorUrl, sizes, cpu } = ctx;
    const held = await holdAnAttempt(appUrl, emulatorUrl, HOLD_MS);
    const plain = await startPlainClaimServer(ctx.databaseUrl, held.customerId);
    try {
      const loads: Record<string, Omit<LoadOptions, "seconds">> = {
        "409 in_progress (30 at once)": {
          url: `${appUrl}/api/checkout`,
          method: "POST",
          headers: checkoutHeaders(held.cookie, held.key),
          body: CART,
          connections: SIMULTANEOUS,
          cpu,
        },
        "plain node:http, same claim (30 at once)": {
          url: `${plain.url}/api/checkout`,
          method: "POST",
          headers: checkoutHeaders(held.cookie, held.key),
          body: CART,
          connections: SIMULTANEOUS,
          // Its "app" CPU is the plain server's process.
          cpu: { ...cpuMeters(plain.pid, null), database: cpu.database },
        },
        "GET /api/health/live (30 at once)": { url: `${appUrl}/api/health/live`, connections: SIMULTANEOUS, cpu },
        "GET /api/products (30 at once)": { url: `${appUrl}/api/products`, connections: SIMULTANEOUS, cpu },
        // The duplicate's request (method, headers, body) to a route without POST: Next.js answers 405 itself.
        "POST /api/health/live, the same request (30 at once)": {
          url: `${appUrl}/api/health/live`,
          method: "POST",
          headers: checkoutHeaders(held.cookie, held.key),
          body: CART,
          connections: SIMULTANEOUS,
          cpu,
        },
      };
      const measures = await interleave(loads, sizes);
      const [conflicts, baseline, live, products, post] = Object.values(measures) as Measure[] as [
        Measure,
        Measure,
        Measure,
        Measure,
        Measure,
      ];
      const notes: string[] = [];
      const expected = [409, 409, 200, 200, 405];
      Object.entries(measures).forEach(([name, measure], i) => {
        const odd = unexpected(measure, expected[i]!);
        if (odd) notes.push(`${odd} answers of ${name} were not ${expected[i]}`);
      });
      return {
        measures,
        goals: [
          goal("409 p50 ÷ plain node:http claim p50", conflicts.p50Ms / baseline.p50Ms, "<=", 2),
          goal("409 p50 ÷ health/live p50", conflicts.p50Ms / live.p50Ms, "<=", 1.05),
          goal("409 p50 ÷ products p50", conflicts.p50Ms / products.p50Ms, "<=", 1.1),
        ],
        figures: {
          // Not a goal: the cheapest POST the server answers (Next.js refuses it before any handler), beside the GET the goal names.
          "409 p50 ÷ POST health/live (405) p50": round(conflicts.p50Ms / post.p50Ms),
          // Not a goal: Next.js's own floor against plain node:http. Above 2, no route of this server meets the first goal.
          "health/live p50 ÷ plain node:http claim p50": round(live.p50Ms / baseline.p50Ms),
        },
        notes,
      };
    } finally {
      await plain.stop();
      await held.release();
    }
  },
};

const round = (ratio: number) => Math.round(ratio * 100) / 100;

/** Loads each in turn, round after round, after a warm-up of each, so the machine's other work weighs on all alike. */
async function interleave(
  loads: Record<string, Omit<LoadOptions, "seconds">>,
  timing: { rounds: number; loadSeconds: number; warmupSeconds: number },
): Promise<Record<string, Measure>> {
  for (const load of Object.values(loads)) await httpLoad({ ...load, seconds: timing.warmupSeconds });
  const recorders = Object.fromEntries(Object.keys(loads).map((name) => [name, new Recorder()]));
  const seconds = Math.max(1, Math.round(timing.loadSeconds / timing.rounds));
  for (let round = 0; round < timing.rounds; round++) {
    for (const [name, load] of Object.entries(loads)) await httpLoad({ ...load, seconds, recorder: recorders[name] });
  }
  return Object.fromEntries(Object.entries(recorders).map(([name, recorder]) => [name, recorder.measure()]));
}

async function startPlainClaimServer(databaseUrl: string, subjectId: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      "./scripts/lib/allow-server-only.mjs",
      "tools/bench/lib/plain-claim-server.ts",
      subjectId,
    ],
    { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = once(child, "exit").then(() => {
    throw new Error("The plain claim server exited before it listened");
  });
  exited.catch(() => undefined); // read by the race below; later, the exit is stop()'s
  const lines = createInterface({ input: child.stdout! });
  const port = await Promise.race([
    (async () => {
      for await (const line of lines) {
        const found = /^port (\d+)$/.exec(line);
        if (found) return Number(found[1]);
      }
      throw new Error("The plain claim server printed no port");
    })(),
    exited,
  ]);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}
