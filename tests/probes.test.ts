import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { sleep } from "./helpers/shopper";

/**
 * What load balancers, orchestrators and scrapers call: liveness, readiness
 * (whose Stripe probe is cached, counted at the emulator: every /v1 request
 * adds one to stats.requests), and the metrics behind METRICS_TOKEN.
 * Without METRICS_TOKEN a production server serves none: tests/npm-start.test.ts.
 */
const CACHE_MS = 2_000;
const TOKEN = "Jq7Xv2mR9sL4kT8wZ1cN6bH3fD0gY5pA_eU-iO7rW2s";
const h = useTestApp({ HEALTH_PROVIDER_CACHE_MS: String(CACHE_MS), METRICS_TOKEN: TOKEN });

const get = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${h.url}${path}`, { headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as unknown };
};
const stripeRequests = async () => (await h.emulator.stats()).requests;

describe("liveness: GET /api/health/live", () => {
  it("answers without asking Stripe", async () => {
    const before = await stripeRequests();
    for (let i = 0; i < 5; i++) {
      const live = await get("/api/health/live");
      expect({ status: live.status, body: live.json() }).toEqual({ status: 200, body: { ok: true } });
      expect(live.headers.get("cache-control")).toBe("no-store");
    }
    expect(await stripeRequests()).toBe(before);
  });
});

describe("readiness: GET /api/health", () => {
  it("asks Stripe once per cache period, however many probes arrive, one after another or at once", async () => {
    await sleep(CACHE_MS + 100); // whatever the start-up probe cached has expired
    const before = await stripeRequests();
    const probes = [];
    for (let i = 0; i < 5; i++) probes.push(await get("/api/health"));
    probes.push(...(await Promise.all([1, 2, 3, 4, 5].map(() => get("/api/health")))));
    for (const probe of probes)
      expect({ status: probe.status, body: probe.json() }).toEqual({
        status: 200,
        body: { ok: true, db: true, payments: true },
      });
    expect(await stripeRequests()).toBe(before + 1);

    await sleep(CACHE_MS + 100);
    expect((await get("/api/health")).status).toBe(200);
    expect(await stripeRequests()).toBe(before + 2); // the cache expires: Stripe is really asked
  });

  it("reports Stripe down with 503, and does not ask it again on every probe while it is", async () => {
    await sleep(CACHE_MS + 100);
    await h.emulator.faults({ failNext: { status: 503, times: 1 } });
    const down = await get("/api/health");
    expect({ status: down.status, body: down.json() }).toEqual({
      status: 503,
      body: { ok: false, db: true, payments: false },
    });
    expect((await h.emulator.stats()).failedInjected).toBe(1); // the provider really failed
    const asked = await stripeRequests();
    expect((await get("/api/health")).status).toBe(503); // the cached answer
    expect(await stripeRequests()).toBe(asked);

    await sleep(CACHE_MS + 100);
    expect((await get("/api/health")).status).toBe(200);
  });
});

describe("GET /api/metrics with METRICS_TOKEN", () => {
  it("refuses a scrape without the bearer token", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer wrong-token-0123456789abcdef" },
      { authorization: `Basic ${btoa(`x:${TOKEN}`)}` },
      { authorization: TOKEN },
    ]) {
      const refused = await get("/api/metrics", headers);
      expect(refused.status).toBe(401);
      expect(refused.json()).toMatchObject({ error: "unauthenticated" });
      expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(refused.text).not.toContain("checkout_claims_total");
    }
  });

  it("serves the counters to the scraper that has it", async () => {
    const scrape = await get("/api/metrics", { authorization: `Bearer ${TOKEN}` });
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scrape.text).toContain("checkout_claims_total");
  });
});
