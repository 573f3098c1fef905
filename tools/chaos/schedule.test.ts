import { describe, expect, it } from "vitest";
import type { FaultKind } from "./faults";
import { parseOptions, UsageError } from "./options";
import { createRandom } from "./random";
import { planFaults } from "./schedule";

const kind = (name: string): FaultKind => ({ name, what: name, inject: async () => true });
const KINDS = ["a", "b", "c", "d"].map(kind);

describe("the seeded fault schedule", () => {
  it("is the same for the same seed and different for another", () => {
    const plan = (seed: number) =>
      planFaults(KINDS, 5, 1000, createRandom(seed)).map((p) => `${p.kind.name}@${p.atAttempt}`);
    expect(plan(42)).toEqual(plan(42));
    expect(plan(42)).not.toEqual(plan(43));
  });

  it("injects every kind once per round, in order of attempts, between 3 % and 90 % of them", () => {
    const plan = planFaults(KINDS, 20, 1000, createRandom(7));
    for (const k of KINDS) expect(plan.filter((p) => p.kind === k)).toHaveLength(20);
    const at = plan.map((p) => p.atAttempt);
    expect(at).toEqual([...at].sort((x, y) => x - y));
    expect(Math.min(...at)).toBeGreaterThanOrEqual(30);
    expect(Math.max(...at)).toBeLessThanOrEqual(900);
  });
});

describe("npm run chaos options", () => {
  it("default to 1,000 attempts on 3 instances with one fault round per 50 attempts", () => {
    expect(parseOptions([], () => 0.5)).toMatchObject({
      attempts: 1000,
      instances: 3,
      seed: 500000,
      faultRounds: 20,
      out: "chaos/results.json",
      doublePressPercent: 20,
      payWith: "confirmation-token",
    });
    expect(parseOptions(["--pay-with", "payment-method"]).payWith).toBe("payment-method");
    expect(parseOptions([]).secondShop).toBe(false);
    expect(parseOptions(["--second-shop", "--attempts", "10"])).toMatchObject({ secondShop: true, attempts: 10 });
    expect(parseOptions(["--attempts", "100", "--seed", "9"])).toMatchObject({
      attempts: 100,
      seed: 9,
      faultRounds: 2,
    });
  });

  it("refuse what they do not know", () => {
    expect(() => parseOptions(["--attempts", "many"])).toThrow(UsageError);
    expect(() => parseOptions(["--faster"])).toThrow(UsageError);
    expect(() => parseOptions(["--broken", "everything"])).toThrow(UsageError);
    expect(() => parseOptions(["--pay-with", "cash"])).toThrow(UsageError);
  });
});
