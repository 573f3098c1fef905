import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createPrismaClient, poolOf } from "../db";
import { admitCheckout, OPEN_ATTEMPTS_RETRY_AFTER_SECONDS } from "./checkout-gate";
import { AbuseLimits, type LimitSettings } from "./limits";

/**
 * The abuse limits against the real database: two app instances (two pools)
 * share one count, an address over its limit waits the rest of the window,
 * and the checkout gate limits fresh keys only.
 */
const first = createPrismaClient(inject("databaseUrl"));
const second = createPrismaClient(inject("databaseUrl"));
afterAll(() => Promise.all([first.$disconnect(), second.$disconnect()]));

const settings = (perWindow: number, windowSeconds = 60): LimitSettings => ({
  windowSeconds,
  scale: 1,
  perWindow: {
    session_per_address: perWindow,
    checkout_per_address: perWindow,
    checkout_per_session: perWindow,
    return_per_address: perWindow,
    return_per_session: perWindow,
  },
});
const address = () => `198.51.100.${Math.floor(Math.random() * 250)}-${randomUUID()}`;

describe("the abuse limits", () => {
  it("share one count across instances: the fourth of a limit of 3 is refused, by either", async () => {
    const a = new AbuseLimits(poolOf(first), settings(3));
    const b = new AbuseLimits(poolOf(second), settings(3));
    const from = address();
    const decisions = [];
    for (const limits of [a, b, a, b]) decisions.push(await limits.consume([["session_per_address", from]]));
    expect(decisions.map((d) => d.ok)).toEqual([true, true, true, false]);
    const refused = decisions[3]!;
    expect(refused).toMatchObject({ ok: false, rule: "session_per_address" });
    expect(!refused.ok && refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(!refused.ok && refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    // Another address has its own count.
    expect((await a.consume([["session_per_address", address()]])).ok).toBe(true);
  });

  it("counts in the shop's database, in a schema of the library's own", async () => {
    const limits = new AbuseLimits(poolOf(first), settings(5));
    const from = address();
    await limits.consume([["return_per_address", from]]);
    await limits.consume([["return_per_address", from]]);
    const rows = await poolOf(first).query<{ points: number }>(
      "select points from rate_limit.counters where key = $1",
      [`return_per_address:${from}`],
    );
    expect(rows.rows).toEqual([{ points: 2 }]);
  });

  it("lets requests through when its store cannot be reached, and says so", async () => {
    const events: string[] = [];
    const broken = createPrismaClient("postgresql://nobody@127.0.0.1:9/none", { connectTimeoutMs: 500 });
    const limits = new AbuseLimits(poolOf(broken), settings(1), (event: string) => events.push(event));
    expect(await limits.consume([["session_per_address", address()]])).toEqual({ ok: true });
    expect(events).toEqual(["rate_limit_error"]);
    await broken.$disconnect();
  });
});

describe("the checkout gate", () => {
  const ENDPOINT = "POST /api/gate-test";
  const claim = (customerId: string, key: string, status: "in_progress" | "completed") =>
    first.idempotencyKey.create({
      data: { subjectId: customerId, endpoint: ENDPOINT, key, requestHash: "g".repeat(64), status },
    });

  it("limits fresh keys per session, never a key the customer already has", async () => {
    const limits = new AbuseLimits(poolOf(first), settings(2));
    const customerId = randomUUID();
    const gate = (key: string) =>
      admitCheckout(
        { prisma: first, limits },
        { customerId, endpoint: ENDPOINT, key, address: address(), maxOpenAttempts: 10 },
      );
    const known = randomUUID();
    expect((await gate(known)).ok).toBe(true);
    await claim(customerId, known, "completed");
    expect((await gate(randomUUID())).ok).toBe(true);
    expect(await gate(randomUUID())).toMatchObject({ ok: false, rule: "checkout_per_session" });
    // The retry of an attempt it already started passes, over the limit or not.
    expect(await gate(known)).toEqual({ ok: true });
  });

  it("refuses a fresh key while the customer has as many open attempts as allowed", async () => {
    const limits = new AbuseLimits(poolOf(first), settings(100));
    const customerId = randomUUID();
    const gate = (key: string) =>
      admitCheckout(
        { prisma: first, limits },
        { customerId, endpoint: ENDPOINT, key, address: address(), maxOpenAttempts: 2 },
      );
    const open = [randomUUID(), randomUUID()];
    for (const key of open) await claim(customerId, key, "in_progress");
    await claim(customerId, randomUUID(), "completed"); // a finished one does not count
    expect(await gate(randomUUID())).toEqual({
      ok: false,
      rule: "open_attempts",
      retryAfterSeconds: OPEN_ATTEMPTS_RETRY_AFTER_SECONDS,
    });
    expect(await gate(open[0]!)).toEqual({ ok: true });
  });
});
