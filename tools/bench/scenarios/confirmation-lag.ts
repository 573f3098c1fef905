import { randomUUID } from "node:crypto";
import pg from "pg";
import { sendUntilAnswered, type IdempotentRequest } from "@checkout/idempotency/client";
import { cartWithToken, setFaults, startSession, TokenPool } from "../lib/app-client";
import { Recorder } from "../lib/measure";
import { goal, type Scenario } from "../lib/scenario";

/**
 * How late a shopper learns a slow payment's outcome: the gateway answers in
 * 10 s (the emulator's latency fault), and each shopper runs the browser's
 * own client (`sendUntilAnswered`: 5 s try timeout, then 409s, each followed
 * by the status endpoint's wait, as lib/checkout-client does). The lag is
 * from the shop recording the outcome (the record's `completed_at`, by the
 * database's clock on this machine) to the shopper holding the answer.
 */
const GATEWAY_MS = 10_000;
const SHOPPERS = 8;
const STATUS_WAIT_MS = 4_000;

export const confirmationLag: Scenario = {
  name: "confirmation-lag",
  title: `confirmation lag (gateway at ${GATEWAY_MS / 1000} s)`,
  async run(ctx) {
    const pool = new TokenPool(ctx.emulatorUrl);
    await pool.fill(SHOPPERS);
    const db = new pg.Pool({ connectionString: ctx.databaseUrl, max: 2 });
    const lags = new Recorder();
    const samples: number[] = [];
    const before = await setFaults(ctx.emulatorUrl, { latencyMs: GATEWAY_MS });
    try {
      await Promise.all(
        Array.from({ length: SHOPPERS }, async () => {
          const cookie = await startSession(ctx.appUrl);
          const fetchAs: typeof fetch = (url, init) =>
            fetch(new URL(String(url), ctx.appUrl), { ...init, headers: { ...init?.headers, cookie } });
          const request: IdempotentRequest = {
            url: "/api/checkout",
            key: randomUUID(),
            bodyJson: cartWithToken(pool.take()),
          };
          const answer = await sendUntilAnswered(request, {
            fetch: fetchAs,
            waitForChange: async (sent) => {
              const started = performance.now();
              const response = await fetchAs(`/api/checkout/${sent.key}?wait=${STATUS_WAIT_MS}`, {});
              const state = (await response.json()) as { status?: string; response?: unknown };
              if (!response.ok) return false;
              if (state.status !== "in_progress") return true;
              return state.response === undefined && performance.now() - started >= STATUS_WAIT_MS / 2;
            },
          });
          const shownAt = Date.now();
          if (answer.status !== 201) throw new Error(`a checkout answered ${answer.status}`);
          const { rows } = await db.query<{ ms: string }>(
            "select extract(epoch from completed_at) * 1000 as ms from idempotency_keys where key = $1::uuid",
            [request.key],
          );
          const lag = Math.max(0, shownAt - Number(rows[0]!.ms));
          samples.push(lag);
          lags.record(lag, "201");
        }),
      );
      const after = await setFaults(ctx.emulatorUrl, { latencyMs: 0 });
      const sorted = [...samples].sort((a, b) => a - b);
      const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]!;
      return {
        measures: { "outcome recorded → shopper holds it": lags.measure() },
        figures: {
          "lag p95 (ms)": Math.round(p95),
          // Evidence the fault applied: every checkout's provider writes sat in the 10 s.
          "delayed provider writes": after.stats.delayed - before.stats.delayed,
        },
        goals: [goal("outcome recorded → shown, p95 (s)", p95 / 1000, "<=", 1)],
        notes: [`${SHOPPERS} shoppers at once, each on its own session, the browser's client with the status wait`],
      };
    } finally {
      await setFaults(ctx.emulatorUrl, { latencyMs: 0 });
      await db.end();
    }
  },
};
