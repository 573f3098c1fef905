import { describe, expect, it } from "vitest";
import { TEST_METRICS_TOKEN } from "./app-server";
import { useTestApp } from "./helpers/harness";
import { delta, scrape } from "./helpers/metrics";
import { cart, newKey } from "./helpers/shopper";

/**
 * Stripe refuses the shop's key (401: wrong or revoked) or a permission (403:
 * a restricted key without it). That is configuration, not a transient
 * failure: payments are not ready and readiness says why, one error is
 * logged a minute and every refusal is counted, and the shopper's attempt is
 * not burned — the same key pays once the key is fixed.
 */
const h = useTestApp({ STRIPE_MAX_NETWORK_RETRIES: "0", HEALTH_PROVIDER_CACHE_MS: "0" });

const health = async (token?: string) => {
  const response = await fetch(`${h.url}/api/health`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe("a key Stripe refuses", () => {
  for (const status of [401, 403] as const) {
    it(`${status}: the checkout answers 503 and keeps the attempt, readiness says what to change, the refusals are counted`, async () => {
      const shopper = await h.shopper();
      const key = newKey();
      const before = await scrape(h.url);
      await h.emulator.faults({ refuse: { status } });

      const refused = await shopper.checkout(key, cart());
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: "payment_unavailable" });
      const ready = await health();
      expect(ready).toMatchObject({ status: 503, body: { ok: false, db: true, payments: false } });
      expect(String(ready.body.reason)).toContain(status === 401 ? "STRIPE_SECRET_KEY" : "permissions");
      // Anonymous readiness names what to change, not the refused path or any Stripe object id.
      expect(String(ready.body.reason)).not.toMatch(/\/v1\/|\b(pi|ch|re|pm|ctoken|evt)_/);
      // The metrics token's holder is told the path as well.
      expect(String((await health(TEST_METRICS_TOKEN)).body.reason)).toMatch(/ on \/v1\/[a-z_]+/);
      expect((await h.emulator.stats()).refused).toBeGreaterThanOrEqual(2); // the checkout's call and the probe
      expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "in_progress", lock_token: null });
      const counted = delta(before, await scrape(h.url), `stripe_refusals_total{status="${status}"}`);
      expect(counted).toBeGreaterThanOrEqual(1);

      // The key is fixed: the same attempt pays, once, and readiness recovers.
      await h.emulator.faults({ refuse: null });
      const paid = await shopper.checkout(key, cart());
      expect(paid.status).toBe(201);
      expect(await health()).toMatchObject({ status: 200, body: { ok: true, payments: true } });
      expect((await h.emulator.ledger()).filter((pi) => pi.status === "succeeded")).toHaveLength(1);
    });
  }
});
