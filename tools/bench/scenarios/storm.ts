import { CART, checkoutHeaders, getFaults, holdAnAttempt } from "../lib/app-client";
import { alternate, unexpected } from "../lib/http-load";
import { goal, type Scenario } from "../lib/scenario";

/**
 * A duplicate storm: the owner of a key is held in a charge longer than the storm (emulated
 * Stripe latency, which delays `/v1` POSTs only) while 200 connections send
 * the same key over and over. Each must get 409 at once, with a tail like a
 * path of the same database work under the same 200 connections: the
 * catalogue read (`GET /api/products`, one statement, as the duplicate's
 * claim), loaded in alternating rounds. Both wait for one of the pool's
 * connections, so the comparison shows what the duplicate adds, not the pool.
 */
/** The owner's charge outlasts the whole storm (both sides' warm-ups and rounds) by a margin. */
const holdMs = (sizes: { loadSeconds: number; warmupSeconds: number }) =>
  (2 * (sizes.warmupSeconds + sizes.loadSeconds) + 15) * 1000;

export const storm: Scenario = {
  name: "storm",
  title: "duplicate storm",
  async run(ctx) {
    const { appUrl, emulatorUrl, sizes } = ctx;
    const { cookie, key, before, release } = await holdAnAttempt(appUrl, emulatorUrl, holdMs(sizes));
    try {
      const { cpu } = ctx;
      const connections = sizes.stormConnections;
      const [conflicts, products] = await alternate(
        {
          url: `${appUrl}/api/checkout`,
          method: "POST",
          headers: checkoutHeaders(cookie, key),
          body: CART,
          connections,
          cpu,
        },
        { url: `${appUrl}/api/products`, connections, cpu },
        sizes,
      );

      // The fault really held the owner, and no duplicate reached the provider.
      const after = await getFaults(emulatorUrl);
      const notes = [
        `owner still in flight after the storm: ${after.stats.charges === before.stats.charges ? "yes" : "NO"}; ` +
          `charges during the storm: ${after.stats.charges - before.stats.charges}`,
      ];
      if (unexpected(conflicts, 409)) notes.push(`${unexpected(conflicts, 409)} duplicate answers were not 409`);
      if (unexpected(products, 200)) notes.push(`${unexpected(products, 200)} catalogue answers were not 200`);
      return {
        measures: { "409 in_progress (duplicates)": conflicts, "GET /api/products": products },
        goals: [goal("409 p99 ÷ products p99", conflicts.p99Ms / products.p99Ms, "<=", 1.5)],
        notes,
      };
    } finally {
      await release();
    }
  },
};
