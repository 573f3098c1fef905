import { randomUUID } from "node:crypto";
import { cartWithToken, startSession, TokenPool } from "../lib/app-client";
import { alternate, unexpected } from "../lib/http-load";
import type { Measure } from "../lib/measure";
import { goal, type Scenario } from "../lib/scenario";

/**
 * Fresh checkouts, each with a new key, through `POST /api/checkout` and
 * through the lab's naive route (the same order and charge, no idempotency):
 * what the safety costs in throughput. Requests rotate over one guest
 * session per connection, as many shoppers would. Each pays with a
 * ConfirmationToken of its own, made before its load round starts (the
 * browser's part, not the shop's), so no timed request makes one.
 */
export const fresh: Scenario = {
  name: "fresh",
  title: "fresh checkouts",
  async run(ctx) {
    const { appUrl, sizes } = ctx;
    const cookies = await Promise.all(Array.from({ length: sizes.connections }, () => startSession(appUrl)));
    let n = 0;
    const pool = new TokenPool(ctx.emulatorUrl);
    // Tokens per second the last load spent (either lane): enough for the next one, twice over.
    let rate = ASSUMED_RATE;
    let last = { taken: 0, seconds: 0 };
    const load = (path: string) => ({
      url: `${appUrl}${path}`,
      method: "POST" as const,
      headers: { "content-type": "application/json" },
      connections: sizes.connections,
      cpu: ctx.cpu,
      perRequest: () => ({ cookie: cookies[n++ % cookies.length]!, "idempotency-key": randomUUID() }),
      bodyPerRequest: () => cartWithToken(pool.take()),
      prepare: async (seconds: number) => {
        if (last.seconds) rate = Math.max(rate, (pool.taken - last.taken) / last.seconds);
        await pool.fill(Math.ceil(rate * seconds * 2) + sizes.connections);
        last = { taken: pool.taken, seconds };
      },
    });
    const [safe, naive] = await alternate(load("/api/checkout"), load("/api/lab/naive-checkout"), sizes);
    const notes: string[] = [];
    if (pool.shortfall) notes.push(`${pool.shortfall} checkouts found no token made for them`);
    if (unexpected(naive, 201)) notes.push(`${unexpected(naive, 201)} naive answers were not 201`);
    if (unexpected(safe, 201)) notes.push(`${unexpected(safe, 201)} checkout answers were not 201`);
    // On a machine whose cores the server, PostgreSQL and the load generator
    // share, throughput is CPU over CPU per request: this ratio is what the
    // throughput ratio tends to when nothing else runs on the machine.
    const cpuPerRequest = (m: Measure) => Object.values(m.cpuMsPerOp).reduce((sum, ms) => sum + ms, 0);
    const figures: Record<string, number> = cpuPerRequest(safe)
      ? {
          "CPU ms per checkout (app + db + bench)": round(cpuPerRequest(safe)),
          "CPU ms per naive checkout": round(cpuPerRequest(naive)),
          "naive CPU ÷ checkout CPU": round(cpuPerRequest(naive) / cpuPerRequest(safe)),
        }
      : {};
    return {
      measures: { "POST /api/checkout (new key each)": safe, "POST /api/lab/naive-checkout": naive },
      figures,
      goals: [goal("checkout 201/s ÷ naive 201/s", paidPerSecond(safe) / paidPerSecond(naive), ">=", 0.85)],
      notes,
    };
  },
};

/** A first guess at checkouts per second, for the warm-up's tokens; the measured rate takes over. */
const ASSUMED_RATE = 400;

const paidPerSecond = (m: Measure) => (m.outcomes["201"] ?? 0) / m.seconds;
const round = (n: number) => Math.round(n * 100) / 100;
