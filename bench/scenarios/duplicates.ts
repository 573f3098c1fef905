import { randomUUID } from "node:crypto";
import { checkoutHeaders, checkoutOnce, getFaults, setFaults, startSession, CART } from "../lib/app-client";
import { alternate, unexpected } from "../lib/http-load";
import { goal, type Scenario } from "../lib/scenario";

/**
 * 30 simultaneous duplicates of a running attempt against 30 simultaneous
 * catalogue reads, in the same run. A duplicate is answered from the claim
 * alone (one statement): since the claim comes before pricing it costs no
 * more than `GET /api/products` (one query). Before, the cart was priced
 * first, one query more per duplicate.
 */
const HOLD_MS = 60_000;
const SIMULTANEOUS = 30;

export const duplicates: Scenario = {
  name: "duplicates",
  title: "30 duplicates vs 30 catalogue reads",
  async run(ctx) {
    const { appUrl, emulatorUrl, sizes, cpu } = ctx;
    const cookie = await startSession(appUrl);
    const key = randomUUID();
    const before = await setFaults(emulatorUrl, { latencyMs: HOLD_MS });
    const owner = checkoutOnce(appUrl, cookie, key, { signal: AbortSignal.timeout(HOLD_MS + 30_000) }).catch(() => null);
    try {
      for (let i = 0; (await getFaults(emulatorUrl)).stats.delayed <= before.stats.delayed; i++) {
        if (i > 200) throw new Error("the owner's charge never reached the emulator");
        await new Promise((r) => setTimeout(r, 50));
      }
      const [conflicts, products] = await alternate(
        { url: `${appUrl}/api/checkout`, method: "POST", headers: checkoutHeaders(cookie, key), body: CART, connections: SIMULTANEOUS, cpu },
        { url: `${appUrl}/api/products`, connections: SIMULTANEOUS, cpu },
        sizes,
      );
      const notes: string[] = [];
      if (unexpected(conflicts, 409)) notes.push(`${unexpected(conflicts, 409)} duplicate answers were not 409`);
      if (unexpected(products, 200)) notes.push(`${unexpected(products, 200)} catalogue answers were not 200`);
      return {
        measures: { "409 in_progress (30 at once)": conflicts, "GET /api/products (30 at once)": products },
        goals: [goal("409 p50 ÷ products p50", conflicts.p50Ms / products.p50Ms, "<=", 1.1)],
        notes,
      };
    } finally {
      await setFaults(emulatorUrl, { latencyMs: 0 });
      void owner;
    }
  },
};
