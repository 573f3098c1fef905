import { describe, expect, it } from "vitest";
import { overBudget, PAGE_SPEED_BUDGET, type PageSpeed } from "./budget";

const within: PageSpeed = {
  page: "/checkout",
  url: "http://localhost:3000/checkout",
  lcpMs: 1_800,
  cls: 0.02,
  tbtMs: 150,
  fcpMs: 900,
  scriptBytes: PAGE_SPEED_BUDGET.checkoutScriptBytes,
  scripts: 12,
  score: 95,
};

describe("the page-speed budget", () => {
  it("is kept at its limits exactly", () => {
    expect(overBudget(within, PAGE_SPEED_BUDGET.checkoutScriptBytes)).toEqual([]);
  });

  it("names every figure past its limit, each on a line", () => {
    const slow = { ...within, lcpMs: 1_801, cls: 0.021, tbtMs: 151, scriptBytes: within.scriptBytes + 1 };
    expect(overBudget(slow, PAGE_SPEED_BUDGET.checkoutScriptBytes)).toEqual([
      "/checkout: LCP 1801 ms > 1800 ms",
      "/checkout: CLS 0.021 > 0.02",
      "/checkout: TBT 151 ms > 150 ms",
      `/checkout: JavaScript ${(within.scriptBytes / 1024 + 1 / 1024).toFixed(1)} KiB > 250.0 KiB`,
    ]);
  });

  it("holds TBT to the limit it is given (the suite's), every other figure to the budget", () => {
    expect(overBudget({ ...within, tbtMs: 300 }, undefined, 300)).toEqual([]);
    expect(overBudget({ ...within, tbtMs: 301, cls: 0.03 }, undefined, 300)).toEqual([
      "/checkout: CLS 0.030 > 0.02",
      "/checkout: TBT 301 ms > 300 ms",
    ]);
  });

  it("checks the JavaScript only where a budget is given", () => {
    expect(overBudget({ ...within, page: "/", scriptBytes: 10_000_000 })).toEqual([]);
  });
});
