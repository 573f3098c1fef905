import { randomUUID } from "node:crypto";
import { CART, setFaults, startSession } from "../lib/app-client";
import { alternate, unexpected } from "../lib/http-load";
import type { Measure } from "../lib/measure";
import { goal, type BenchContext, type Goal, type Scenario } from "../lib/scenario";
import { BENCH_METRICS_TOKEN } from "../lib/stack";

/**
 * Shoppers paying at once with the provider as slow as Stripe: the emulator
 * answers every write in 300 ms, and 16, then 64 shoppers (one guest session
 * and one connection each) pay again as soon as they are answered (closed
 * loop), through `POST /api/checkout` and through the lab's naive route in
 * alternating rounds. What the whole HTTP path costs under load: throughput,
 * p50 and p99 per side, CPU per checkout, and where a checkout's time went
 * (the app's `checkout_phase_seconds`: admission, claim, order, provider,
 * outcome).
 */
const PROVIDER_MS = 300;
const SHOPPERS = [16, 64];
const PHASES = ["admission", "claim", "order", "provider", "outcome"] as const;

export const concurrent: Scenario = {
  name: "concurrent",
  title: `concurrent shoppers (provider ${PROVIDER_MS} ms per call)`,
  async run(ctx) {
    const measures: Record<string, Measure> = {};
    const figures: Record<string, number> = {};
    const goals: Goal[] = [];
    const notes: string[] = [];
    await setFaults(ctx.emulatorUrl, { latencyMs: PROVIDER_MS });
    try {
      for (const shoppers of SHOPPERS) {
        const cookies = await Promise.all(Array.from({ length: shoppers }, () => startSession(ctx.appUrl)));
        let n = 0;
        const load = (path: string) => ({
          url: `${ctx.appUrl}${path}`,
          method: "POST" as const,
          body: CART,
          headers: { "content-type": "application/json" },
          connections: shoppers,
          cpu: ctx.cpu,
          perRequest: () => ({ cookie: cookies[n++ % cookies.length]!, "idempotency-key": randomUUID() }),
        });
        const before = await phaseTotals(ctx);
        const [safe, naive] = await alternate(load("/api/checkout"), load("/api/lab/naive-checkout"), ctx.sizes);
        const after = await phaseTotals(ctx);
        measures[`POST /api/checkout, ${shoppers} shoppers`] = safe;
        measures[`POST /api/lab/naive-checkout, ${shoppers} shoppers`] = naive;
        for (const [side, m] of [
          ["checkout", safe],
          ["naive", naive],
        ] as const) {
          if (unexpected(m, 201))
            notes.push(`${shoppers} shoppers: ${unexpected(m, 201)} ${side} answers were not 201`);
          figures[`${shoppers} shoppers: CPU ms per ${side} (app + db + bench)`] = round(cpuPerRequest(m));
        }
        // Mean per checkout (warm-up included), from the app's own histogram.
        for (const phase of PHASES) {
          const count = after[phase].count - before[phase].count;
          if (count > 0)
            figures[`${shoppers} shoppers: ${phase} ms per checkout (mean)`] = round(
              ((after[phase].sum - before[phase].sum) * 1000) / count,
            );
        }
        goals.push(
          goal(
            `${shoppers} shoppers: checkout 201/s ÷ naive 201/s`,
            paidPerSecond(safe) / paidPerSecond(naive),
            ">=",
            0.95,
          ),
          goal(`${shoppers} shoppers: checkout p99 ÷ naive p99`, safe.p99Ms / naive.p99Ms, "<=", 1.1),
        );
      }
    } finally {
      await setFaults(ctx.emulatorUrl, { latencyMs: 0 });
    }
    return { measures, figures, goals, notes };
  },
};

/** The app's `checkout_phase_seconds` sums and counts, by phase. */
async function phaseTotals(
  ctx: BenchContext,
): Promise<Record<(typeof PHASES)[number], { sum: number; count: number }>> {
  const response = await fetch(`${ctx.appUrl}/api/metrics`, {
    headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` },
  });
  if (!response.ok) throw new Error(`GET /api/metrics answered ${response.status}`);
  const text = await response.text();
  const read = (series: string, phase: string) =>
    Number(new RegExp(`^checkout_phase_seconds_${series}\\{phase="${phase}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
  return Object.fromEntries(
    PHASES.map((phase) => [phase, { sum: read("sum", phase), count: read("count", phase) }]),
  ) as Record<(typeof PHASES)[number], { sum: number; count: number }>;
}

const paidPerSecond = (m: Measure) => (m.outcomes["201"] ?? 0) / m.seconds;
const cpuPerRequest = (m: Measure) => Object.values(m.cpuMsPerOp).reduce((sum, ms) => sum + ms, 0);
const round = (n: number) => Math.round(n * 100) / 100;
