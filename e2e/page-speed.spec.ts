import { overBudget, PAGE_SPEED_BUDGET, kib } from "@/tools/page-speed/budget";
import { measureShop } from "@/tools/page-speed/pages";
import { expect, test } from "./fixtures";

// Lighthouse on the throttled mobile profile, once per page, against the
// worker's production build and the emulator's Stripe.js: the checkout with a
// cart, the shop and an order's confirmation keep the budget (tools/page-speed).
// A project of its own that `npm test` runs last and alone (scripts/test.mjs): Lighthouse's
// timings are then the page's, not the other journeys' CPU.

test(
  "The checkout, the shop and the confirmation keep the speed budget on a throttled phone",
  { tag: "@page-speed" },
  async ({ workerApp }) => {
    test.setTimeout(300_000);
    const speeds = await measureShop(workerApp.url);
    expect(speeds.map((s) => s.page)).toEqual(["/", "/checkout", "/orders/{id}"]);
    for (const s of speeds) {
      const line = `LCP ${Math.round(s.lcpMs)} ms · CLS ${s.cls.toFixed(3)} · TBT ${Math.round(s.tbtMs)} ms · JS ${kib(s.scriptBytes)} in ${s.scripts} scripts · score ${s.score} · CPU ×${s.cpuSlowdown} (host index ${s.benchmarkIndex})`;
      test.info().annotations.push({ type: `page-speed ${s.page}`, description: line });
      console.log(`[page-speed] ${s.page}: ${line}; LCP element ${s.lcpElement ?? "none"}`);
      for (const shifted of s.shifted ?? []) console.log(`[page-speed] ${s.page}: shifted ${shifted}`);
      for (const task of s.longTasks ?? []) console.log(`[page-speed] ${s.page}: long task ${task}`);
    }
    const broken = speeds.flatMap((s) =>
      overBudget(s, s.page === "/checkout" ? PAGE_SPEED_BUDGET.checkoutScriptBytes : undefined),
    );
    // Layout shift and script bytes are the page's alone: a regression fails here. LCP and TBT still move by
    // half their budget from one run to the next on a two-core host even alone (TBT 100 and 224 ms for the
    // same checkout), so they are printed here and judged by the bench (`page-speed`).
    const timing = broken.filter((line) => / (LCP|TBT) /.test(line));
    for (const line of timing) console.log(`[page-speed] over the timing budget in this run: ${line}`);
    expect(
      broken.filter((line) => !timing.includes(line)),
      "past the speed budget",
    ).toEqual([]);
  },
);
