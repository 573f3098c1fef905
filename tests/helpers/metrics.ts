import { expect } from "vitest";
import { TEST_METRICS_TOKEN } from "../app-server";

/** An instance's Prometheus counters, `name{labels}` → value. */
export type Samples = Map<string, number>;

/** Scrapes GET /api/metrics and parses the exposition format. */
export async function scrape(appUrl: string, token = TEST_METRICS_TOKEN): Promise<Samples> {
  const response = await fetch(`${appUrl}/api/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(response.headers.get("cache-control")).toBe("no-store");
  const samples: Samples = new Map();
  for (const line of (await response.text()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

export const delta = (before: Samples, after: Samples, sample: string) =>
  (after.get(sample) ?? 0) - (before.get(sample) ?? 0);
