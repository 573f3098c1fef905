import { CART, checkoutHeaders, holdAnAttempt } from "../lib/app-client";
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
    const held = await holdAnAttempt(appUrl, emulatorUrl, HOLD_MS);
    try {
      const [conflicts, products] = await alternate(
        {
          url: `${appUrl}/api/checkout`,
          method: "POST",
          headers: checkoutHeaders(held.cookie, held.key),
          body: CART,
          connections: SIMULTANEOUS,
          cpu,
        },
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
      await held.release();
    }
  },
};
