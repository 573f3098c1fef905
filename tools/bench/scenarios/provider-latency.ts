import { randomUUID } from "node:crypto";
import { cartWithToken, checkoutHeaders, setFaults, startSession, TokenPool } from "../lib/app-client";
import { runConcurrent } from "../lib/measure";
import { goal, type Scenario } from "../lib/scenario";

/**
 * What a shopper waits for a fresh checkout when Stripe takes as long as it
 * really does: the emulator answers every write in 300 ms (about Stripe test
 * mode's create-and-confirm), and fresh checkouts go one at a time through
 * `POST /api/checkout` and through the lab's naive route, which charges with
 * one call and no idempotency. Their medians' ratio is the latency the safety
 * costs: a second provider call would show as about 2. Each checkout pays
 * with a ConfirmationToken of its own, made before the timed requests (the
 * browser's part; the emulator's latency never applies to it).
 */
const PROVIDER_MS = 300;
const CHECKOUTS = 15;

export const providerLatency: Scenario = {
  name: "provider-latency",
  title: `provider latency (${PROVIDER_MS} ms per call)`,
  async run(ctx) {
    const cookie = await startSession(ctx.appUrl);
    const pool = new TokenPool(ctx.emulatorUrl);
    const sequential = async (path: string) => {
      await pool.fill(CHECKOUTS);
      return runConcurrent({ concurrency: 1, count: CHECKOUTS }, async () => {
        const body = cartWithToken(pool.take());
        const response = await fetch(`${ctx.appUrl}${path}`, {
          method: "POST",
          headers: checkoutHeaders(cookie, randomUUID()),
          body,
        });
        await response.arrayBuffer();
        if (response.status !== 201) throw new Error(`${path} answered ${response.status}`);
      });
    };
    const before = await setFaults(ctx.emulatorUrl, { latencyMs: PROVIDER_MS });
    try {
      // Warm both paths (route modules, pooled connections) before timing them.
      await sequential("/api/checkout");
      await sequential("/api/lab/naive-checkout");
      const safe = await sequential("/api/checkout");
      const naive = await sequential("/api/lab/naive-checkout");
      const after = await setFaults(ctx.emulatorUrl, { latencyMs: 0 });
      const checkouts = 4 * CHECKOUTS;
      const delayed = after.stats.delayed - before.stats.delayed;
      return {
        measures: {
          [`POST /api/checkout, one at a time, provider ${PROVIDER_MS} ms`]: safe,
          [`POST /api/lab/naive-checkout, one at a time, provider ${PROVIDER_MS} ms`]: naive,
        },
        // Evidence that the latency applied: every checkout's writes sat in it.
        figures: { "provider writes per checkout": Math.round((delayed / checkouts) * 100) / 100 },
        goals: [goal("fresh checkout p50 ÷ naive p50, provider at 300 ms", safe.p50Ms / naive.p50Ms, "<=", 1.05)],
        notes: [],
      };
    } finally {
      await setFaults(ctx.emulatorUrl, { latencyMs: 0 });
    }
  },
};
