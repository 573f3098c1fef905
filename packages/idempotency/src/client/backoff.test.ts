import { describe, expect, it } from "vitest";
import { BACKOFF, ceilingMs, nextRetryDelay } from "./backoff";

const fixed = (value: number) => () => value;
const delay = (retry: number, random: () => number, extra: { elapsedMs?: number; retryAfterMs?: number } = {}) =>
  nextRetryDelay({ retry, elapsedMs: extra.elapsedMs ?? 0, retryAfterMs: extra.retryAfterMs, random });

describe("nextRetryDelay", () => {
  it("waits between 300 and 1500 ms before the first retry", () => {
    expect(delay(1, fixed(0))).toBe(300);
    expect(delay(1, fixed(0.5))).toBe(900);
    expect(delay(1, fixed(0.999999))).toBe(1500);
  });

  it("doubles the ceiling with every retry", () => {
    const top = fixed(0.999999);
    expect([1, 2, 3].map((n) => delay(n, top))).toEqual([1500, 3000, 6000]);
    expect(ceilingMs(2)).toBe(2 * ceilingMs(1));
    expect(ceilingMs(3)).toBe(2 * ceilingMs(2));
  });

  it("never waits longer than the 8 s cap, however many retries", () => {
    for (const retry of [4, 5, 10, 50]) {
      expect(delay(retry, fixed(0.999999))).toBe(BACKOFF.capMs);
      expect(ceilingMs(retry)).toBe(8000);
    }
  });

  it("never waits shorter than the floor", () => {
    for (const retry of [1, 2, 5, 20]) expect(delay(retry, fixed(0))).toBe(300);
  });

  it("never waits shorter than Retry-After, even above the cap", () => {
    expect(delay(1, fixed(0), { retryAfterMs: 1000 })).toBe(1000);
    expect(delay(1, fixed(0.9), { retryAfterMs: 1000 })).toBe(1380);
    expect(delay(6, fixed(0.5), { retryAfterMs: 12_000 })).toBe(12_000);
  });

  it("spreads waits across the whole window (full jitter)", () => {
    let seed = 42;
    // A small deterministic generator: the test must not be flaky, yet sample widely.
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const samples = Array.from({ length: 2000 }, () => delay(3, random)!);
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(300);
    expect(Math.max(...samples)).toBeLessThanOrEqual(6000);
    expect(Math.min(...samples)).toBeLessThan(600);
    expect(Math.max(...samples)).toBeGreaterThan(5700);
    const buckets = new Set(samples.map((ms) => Math.floor((ms - 300) / 570)));
    expect(buckets.size).toBe(10);
  });

  it("gives up when the wait would end past the 60 s budget", () => {
    expect(delay(3, fixed(0.5), { elapsedMs: 56_000 })).toBe(3150);
    expect(delay(3, fixed(0.5), { elapsedMs: 57_000 })).toBeNull();
    expect(delay(1, fixed(0), { elapsedMs: 59_800 })).toBeNull();
    expect(delay(1, fixed(0), { elapsedMs: 30_000, retryAfterMs: 31_000 })).toBeNull();
  });

  it("keeps the sum of all waits within the budget", () => {
    let elapsedMs = 0;
    let retries = 0;
    for (let retry = 1; ; retry++) {
      const wait = delay(retry, fixed(0.999999), { elapsedMs });
      if (wait === null) break;
      elapsedMs += wait;
      retries++;
    }
    expect(elapsedMs).toBeLessThanOrEqual(BACKOFF.budgetMs);
    // 1.5 + 3 + 6 + 8 × 6 = 58.5 s: the longest waits still allow nine retries.
    expect(retries).toBe(9);
  });
});
