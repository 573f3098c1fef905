import { describe, expect, it } from "vitest";
import { gateWithBudget, maxInAnySecond, simulateAbuse } from "@/tools/bench/lib/abuse-simulation";
import { BackgroundBudget, backgroundPace, OVER_SHARE_SECONDS, ProviderBudget, SlidingWindow } from "./provider-budget";

/**
 * The provider budget on a clock of the test's own: at most its rate in any
 * second, each address its share, and an honest shopper admitted beside
 * addresses at their limits (docs/decisions/0020-a-budget-a-few-cannot-drain.md).
 */
const T0 = 1_700_000_000_000;

describe("a window of one second that slides", () => {
  it("holds at most its limit in any second, and a place given back is free again", () => {
    const window = new SlidingWindow(3);
    expect([0, 100, 200, 300].map((at) => window.take(T0 + at))).toEqual([true, true, true, false]);
    expect(window.waitMs(T0 + 300)).toBe(700);
    window.giveBack(T0 + 100);
    expect(window.take(T0 + 300)).toBe(true);
    // The second after the first taking: one place free, not three (a token bucket would give three more).
    expect(window.take(T0 + 1000)).toBe(true);
    expect(window.take(T0 + 1001)).toBe(false);
    expect(window.used(T0 + 1199)).toBe(3);
    expect(window.used(T0 + 1200)).toBe(2);
    expect(window.used(T0 + 1300)).toBe(1);
  });
});

describe("the shoppers' provider budget", () => {
  it("admits at most its rate of 60 fresh keys from one address at once, and takes a unit back once", () => {
    const gate = gateWithBudget(10);
    const admissions = Array.from({ length: 60 }, (_, i) => gate.admission(`session-${i}`, "203.0.113.9", T0));
    const admitted = admissions.filter((a) => a.admit === true);
    // One address alone gets its share: half of the budget, the other half kept for whoever comes next.
    expect(admitted).toHaveLength(5);
    expect(gate.providerCalls(T0)).toBe(5);
    for (const refused of admissions.filter((a) => a.admit !== true)) {
      expect(refused.admit).toEqual({ blockedBy: "provider_budget", retryAfterSeconds: 1 });
      // A known key of this request is answered, never retaken without a unit.
      expect(refused.retake).toEqual({ blockedBy: "provider_budget", retryAfterSeconds: 1 });
    }
    // A replay, a known key answered: its unit goes back, once however often it is given.
    admitted[0]!.giveBack();
    admitted[0]!.giveBack();
    expect(gate.providerCalls(T0)).toBe(4);
    // Another address still finds the other half of the second's calls.
    const others = Array.from({ length: 10 }, (_, i) => gate.admission(`other-${i}`, `192.0.2.${i}`, T0 + 10));
    expect(others.filter((a) => a.admit === true)).toHaveLength(6);
    expect(gate.providerCalls(T0 + 10)).toBe(10);
    expect(gate.admission("late", "192.0.2.200", T0 + 20).admit).toEqual({
      blockedBy: "provider_budget",
      retryAfterSeconds: 1,
    });
  });

  it("keeps a place for an honest shopper while ten addresses hold units with requests that never reach Stripe", () => {
    const budget = new ProviderBudget(10);
    const abusers = Array.from({ length: 10 }, (_, i) => `198.51.100.${i}`);
    let honestAdmitted = 0;
    for (let round = 0; round < 100; round++) {
      const at = T0 + round * 100;
      // Each abuser's replay holds its unit while it waits on the claim…
      const held = abusers.flatMap((address) => {
        const reserved = budget.reserve(address, at);
        return reserved.ok ? [reserved.reservation] : [];
      });
      // …when the honest shopper asks, every 3 s (within the share of one address in eleven).
      if (round % 30 === 5) {
        const honest = budget.reserve("192.0.2.7", at + 1);
        if (honest.ok) {
          honestAdmitted += 1;
          budget.giveBack(honest.reservation);
        }
      }
      // The replays made no call: their units go back, not their addresses' shares.
      for (const reservation of held) budget.giveBack(reservation);
      if (round > 0) expect(held.length).toBeLessThanOrEqual(5);
    }
    expect(honestAdmitted).toBe(4);
  });

  it("never spends more than its rate in any second, however the requests come", () => {
    const outcome = simulateAbuse({
      abusers: 40,
      abuserEveryMs: 1000,
      honestEveryMs: 10_000,
      honestKeys: 30,
      perSecond: 10,
    });
    expect(outcome.maxPerSecond).toBe(10);
    expect(maxInAnySecond([0, 10, 999, 1000, 1001])).toBe(4);
  });

  it.each([
    [10, 1000],
    [40, 1000],
    [10, 50],
    [40, 50],
  ])(
    "admits at least 95 percent of an honest shopper's fresh keys beside %i abusive addresses asking every %i ms",
    (abusers, abuserEveryMs) => {
      const outcome = simulateAbuse({
        abusers,
        abuserEveryMs,
        honestEveryMs: 10_000,
        honestKeys: abuserEveryMs < 1000 ? 30 : 100,
        perSecond: 10,
      });
      expect(outcome.honestShare).toBeGreaterThanOrEqual(0.95);
      // The abusers were at it: they asked for many times the budget and got about half of it.
      expect(outcome.abuserAdmitted).toBeGreaterThan(outcome.honestKeys * 10 * 0.3);
      expect(outcome.maxPerSecond).toBeLessThanOrEqual(10);
    },
  );

  it("keeps an address that asked beyond its share to the first half of the second's calls", () => {
    const budget = new ProviderBudget(10);
    // Alone, an address's share is 5 a second: the sixth at once is beyond it, and the first half is taken.
    const first = Array.from({ length: 6 }, () => budget.reserve("203.0.113.1", T0).ok);
    expect(first).toEqual([true, true, true, true, true, false]);
    // Beside another address, a second later: its bucket has room again (2.5 of a share of 2.5), yet it
    // asked beyond its share, so it only gets places while fewer than half of the second's are used.
    expect(Array.from({ length: 4 }, () => budget.reserve("192.0.2.1", T0 + 1000).ok)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(budget.reserve("203.0.113.1", T0 + 1000).ok).toBe(true);
    expect(budget.reserve("203.0.113.1", T0 + 1001)).toEqual({ ok: false, retryAfterSeconds: 1 });
    // The other address, within its share, still finds a place in the second half.
    expect(budget.reserve("192.0.2.2", T0 + 1002).ok).toBe(true);
    // Kept within its share for OVER_SHARE_SECONDS and more, the whole budget is open to it again.
    const later = T0 + 1001 + (OVER_SHARE_SECONDS + 1 / 2.5 + 1) * 1000;
    expect(budget.reserve("203.0.113.1", later).ok).toBe(true);
  });
});

describe("the shop's own calls' budget", () => {
  it("is one per process, whichever client draws on it", async () => {
    const webhooks = backgroundPace(2);
    const audit = backgroundPace(2);
    expect([await webhooks(0), await audit(0)]).toEqual([0, 0]);
    // The second's two places are taken: neither client gets a third without waiting.
    expect(await webhooks(0)).toBeNull();
    expect(await audit(0)).toBeNull();
  });

  it("waits for a place rather than refusing, and gives up past its longest wait", async () => {
    let now = T0;
    const slept: number[] = [];
    const budget = new BackgroundBudget(2, {
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    });
    expect(await budget.take(5000)).toBe(0);
    now += 400;
    expect(await budget.take(5000)).toBe(0);
    // The third waits until the first is a second old.
    expect(await budget.take(5000)).toBe(600);
    expect(slept).toEqual([600]);
    // A caller that may wait 100 ms is told at once that no place comes in time.
    expect(await budget.take(100)).toBeNull();
    expect(slept).toEqual([600]);
  });
});
