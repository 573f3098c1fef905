import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createPrismaClient, poolOf, engineDatabase } from "../db";
import { IdempotencyEngine } from "@checkout/idempotency";
import { admissionGate, countDecline, OPEN_ATTEMPTS_RETRY_AFTER_SECONDS, type Admission } from "./admission";
import { CheckoutGate, type CheckoutLimits } from "./checkout-gate";
import type { Observe } from "../observability";
import { AbuseLimits, type LimitSettings } from "./limits";

/**
 * The abuse limits against the real database: two app instances (two pools)
 * share one count, an address over its limit waits the rest of the window
 * and is then refused from memory, a store that cannot count refuses; and
 * the checkout's admission, checked in the claim, limits fresh keys only.
 */
const first = createPrismaClient(inject("databaseUrl"));
const second = createPrismaClient(inject("databaseUrl"));
afterAll(() => Promise.all([first.$disconnect(), second.$disconnect()]));

const settings = (perWindow: number, windowSeconds = 60): LimitSettings => ({
  windowSeconds,
  scale: 1,
  perWindow: {
    session_per_address: perWindow,
    return_per_address: perWindow,
    return_per_session: perWindow,
    csp_report_per_address: perWindow,
    ops_signin_per_address: perWindow,
  },
});
const address = () => `198.51.100.${Math.floor(Math.random() * 250)}-${randomUUID()}`;
const points = async (key: string) =>
  (await poolOf(first).query<{ points: number }>("select points from rate_limit.counters where key = $1", [key])).rows;

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
    expect(!refused.ok && refused.unavailable).toBeFalsy();
    expect(!refused.ok && refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(!refused.ok && refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    // Another address has its own count.
    expect((await a.consume([["session_per_address", address()]])).ok).toBe(true);
  });

  it("counts in the migration's table, and refuses a spent bucket from memory without a write", async () => {
    const limits = new AbuseLimits(poolOf(first), settings(2));
    const from = address();
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push((await limits.consume([["return_per_address", from]])).ok);
    expect(decisions).toEqual([true, true, false, false, false, false]);
    // Two admitted, the third refused by the store and remembered; the last three never reached it.
    expect(await points(`return_per_address:${from}`)).toEqual([{ points: 3 }]);
  });

  it("refuses when its store cannot count, and says so as an alarm; a known key's check may pass", async () => {
    const events: Array<[string, unknown]> = [];
    const broken = createPrismaClient("postgresql://nobody@127.0.0.1:9/none", { connectTimeoutMs: 500 });
    const limits = new AbuseLimits(poolOf(broken), settings(1), ((event: string, fields?: Record<string, unknown>) =>
      events.push([event, fields?.alarm])) as Observe);
    expect(await limits.consume([["session_per_address", address()]])).toMatchObject({
      ok: false,
      unavailable: true,
      rule: "session_per_address",
    });
    expect(await limits.consume([["return_per_session", randomUUID()]], { failOpen: true })).toEqual({ ok: true });
    expect(events).toEqual([
      ["rate_limit_error", true],
      ["rate_limit_error", true],
    ]);
    await broken.$disconnect();
  });
});

describe("the checkout's admission, in the claim", () => {
  const ENDPOINT = "POST /api/gate-test";
  const engine = new IdempotencyEngine(engineDatabase(first), {
    inProgressTtlMs: 90_000,
    retentionHours: 24,
    attemptDeadlineMs: 1_800_000,
  });
  const limits = (overrides: Partial<CheckoutLimits> = {}): CheckoutLimits => ({
    perAddress: 100,
    perSession: 100,
    maxOpenAttempts: 100,
    // Windows are aligned to the clock: a day's, so no test straddles the start of a new one.
    windowSeconds: 86_400,
    declinesPerSession: 100,
    declinesPerAddress: 100,
    declinesPerCard: 100,
    declineWindowSeconds: 3600,
    providerPerSecond: 1000,
    providerBreakerSeconds: 5,
    ...overrides,
  });
  const claim = (customerId: string, key: string, admission: Admission) => {
    const scope = { subjectId: customerId, endpoint: ENDPOINT, key };
    return engine.claim(scope, "g".repeat(64), admissionGate(scope, admission));
  };
  const finish = (owner: Parameters<IdempotencyEngine["finish"]>[0]) =>
    engine.finish(owner, { status: "completed", response: { statusCode: 201, body: "{}", headers: {} } });
  const stored = async (customerId: string) =>
    Number(
      (
        await poolOf(first).query<{ n: string }>(
          "select count(*) as n from idempotency_keys where subject_id = $1 and endpoint = $2",
          [customerId, ENDPOINT],
        )
      ).rows[0]!.n,
    );

  it("limits fresh keys per session, never a key the customer already has", async () => {
    const gate = new CheckoutGate(limits({ perSession: 2 }));
    const customerId = randomUUID();
    const from = address();
    const known = randomUUID();
    const first = await claim(customerId, known, gate.admission(customerId, from));
    expect(first.kind).toBe("claimed");
    if (first.kind === "claimed") await finish(first.owner);
    expect((await claim(customerId, randomUUID(), gate.admission(customerId, from))).kind).toBe("claimed");
    const refused = await claim(customerId, randomUUID(), gate.admission(customerId, from));
    expect(refused).toMatchObject({ kind: "refused", rule: "checkout_per_session" });
    expect(refused.kind === "refused" && refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.kind === "refused" && refused.retryAfterSeconds).toBeLessThanOrEqual(86_400);
    expect(await stored(customerId)).toBe(2);
    // The retry of an attempt it already started passes, over the limit or not, and even while remembered as spent.
    if (refused.kind === "refused") gate.refused(customerId, from, refused.rule, refused.retryAfterSeconds);
    const blocked = gate.admission(customerId, from);
    expect(blocked.admit).not.toBe(true);
    expect((await claim(customerId, known, blocked)).kind).toBe("replay");
    expect(await claim(customerId, randomUUID(), blocked)).toMatchObject({
      kind: "refused",
      rule: "checkout_per_session",
    });
    expect(await stored(customerId)).toBe(2);
  });

  it("limits fresh keys per address across sessions, counted over the address's shards", async () => {
    const gate = new CheckoutGate(limits({ perAddress: 5 }));
    const from = address();
    const kinds = [];
    for (let i = 0; i < 7; i++) {
      const customerId = randomUUID();
      kinds.push((await claim(customerId, randomUUID(), gate.admission(customerId, from))).kind);
    }
    expect(kinds).toEqual(["claimed", "claimed", "claimed", "claimed", "claimed", "refused", "refused"]);
    const { rows } = await poolOf(first).query<{ hits: string }>(
      "select sum(hits) as hits from admission_counters where rule = 'checkout_per_address' and bucket = $1",
      [from],
    );
    expect(Number(rows[0]!.hits)).toBe(5);
  });

  it("gives the last open slot to one of many racing fresh keys, and frees it when an attempt finishes", async () => {
    const gate = new CheckoutGate(limits({ maxOpenAttempts: 2 }));
    const customerId = randomUUID();
    const from = address();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => claim(customerId, randomUUID(), gate.admission(customerId, from))),
    );
    const claimed = results.filter((r) => r.kind === "claimed");
    expect(claimed).toHaveLength(2);
    for (const refused of results.filter((r) => r.kind !== "claimed"))
      expect(refused).toEqual({
        kind: "refused",
        rule: "open_attempts",
        retryAfterSeconds: OPEN_ATTEMPTS_RETRY_AFTER_SECONDS,
      });
    expect(await stored(customerId)).toBe(2);
    if (claimed[0]?.kind === "claimed") await finish(claimed[0].owner);
    expect((await claim(customerId, randomUUID(), gate.admission(customerId, from))).kind).toBe("claimed");
  });

  it("refuses fresh keys of a session or an address past its declines, never a known key", async () => {
    const gate = new CheckoutGate(limits({ declinesPerSession: 2, declinesPerAddress: 3 }));
    const customerId = randomUUID();
    const from = address();
    const known = randomUUID();
    expect((await claim(customerId, known, gate.admission(customerId, from))).kind).toBe("claimed");
    for (let i = 0; i < 2; i++) await countDecline(first, customerId, from, 3600);
    const refused = await claim(customerId, randomUUID(), gate.admission(customerId, from));
    expect(refused).toMatchObject({ kind: "refused", rule: "too_many_declines" });
    expect(refused.kind === "refused" && refused.retryAfterSeconds).toBeGreaterThan(0);
    expect((await claim(customerId, known, gate.admission(customerId, from))).kind).toBe("in_progress");
    // Another session behind the same address: refused once the address has had 3.
    const other = randomUUID();
    expect((await claim(other, randomUUID(), gate.admission(other, from))).kind).toBe("claimed");
    await countDecline(first, other, from, 3600);
    expect(await claim(other, randomUUID(), gate.admission(other, from))).toMatchObject({
      kind: "refused",
      rule: "too_many_declines",
    });
  });

  it("admits at most the provider budget's second of 60 concurrent fresh keys from one address, each claim on the database", async () => {
    const gate = new CheckoutGate(limits({ providerPerSecond: 10 }));
    const from = address();
    const now = Date.now();
    // As concurrent handlers do: the admission, the claim, the unit given back when no call is made.
    const results = await Promise.all(
      Array.from({ length: 60 }, async () => {
        const customerId = randomUUID();
        const admission = gate.admission(customerId, from, now);
        const result = await claim(customerId, randomUUID(), admission);
        if (result.kind !== "claimed") admission.giveBack();
        return { customerId, result };
      }),
    );
    const claimed = results.filter((r) => r.result.kind === "claimed");
    // At most the second's 10; one address alone gets its share, half of them.
    expect(claimed.length).toBeGreaterThanOrEqual(1);
    expect(claimed.length).toBeLessThanOrEqual(10);
    expect(gate.providerCalls(now)).toBe(claimed.length);
    for (const { customerId, result } of results.filter((r) => r.result.kind !== "claimed")) {
      expect(result).toEqual({ kind: "refused", rule: "provider_budget", retryAfterSeconds: 1 });
      expect(await stored(customerId)).toBe(0);
    }
  });

  it("gives a known key's unit back, and retakes an attempt only with a unit of the budget", async () => {
    const gate = new CheckoutGate(limits({ providerPerSecond: 2 }));
    const from = address();
    const customerId = randomUUID();
    const key = randomUUID();
    const now = Date.now();
    const first = await claim(customerId, key, gate.admission(customerId, from, now));
    expect(first.kind).toBe("claimed");
    // The provider's answer was lost: the claim is released for the client's retry.
    if (first.kind === "claimed") await engine.release(first.owner);
    expect(gate.providerCalls(now)).toBe(1);
    // Alone, the address's share (1 a second) is spent: the retry may not ask the provider again yet.
    const spent = gate.admission(customerId, from, now);
    expect(spent.retake).toEqual({ blockedBy: "provider_budget", retryAfterSeconds: 1 });
    expect(await claim(customerId, key, spent)).toEqual({
      kind: "refused",
      rule: "provider_budget",
      retryAfterSeconds: 1,
    });
    // A second later it may: the retake takes the unit, as a fresh key would.
    const later = gate.admission(customerId, from, now + 1000);
    const retaken = await claim(customerId, key, later);
    expect(retaken).toMatchObject({ kind: "claimed", owner: { retaken: true, attempt: 2 } });
    expect(gate.providerCalls(now + 1000)).toBe(1);
    if (retaken.kind === "claimed") await finish(retaken.owner);
    // A replay makes no call: its unit goes back.
    const replayed = gate.admission(customerId, from, now + 2000);
    expect((await claim(customerId, key, replayed)).kind).toBe("replay");
    replayed.giveBack();
    expect(gate.providerCalls(now + 2000)).toBe(0);
  });

  it("sheds fresh keys and retakes while the provider is busy, known keys still answered", async () => {
    const gate = new CheckoutGate(limits({ providerPerSecond: 2, providerBreakerSeconds: 5 }));
    const now = 1_000_000;
    const customerId = randomUUID();
    expect(gate.admission(customerId, "a", now).admit).toBe(true);
    gate.providerBusy(now + 600);
    const busy = gate.admission(customerId, "a", now + 1_600);
    expect(busy.admit).toEqual({ blockedBy: "provider_busy", retryAfterSeconds: 4 });
    expect(busy.retake).toEqual(busy.admit);
    expect(gate.admission(customerId, "a", now + 5_700).admit).toBe(true);
  });
});
