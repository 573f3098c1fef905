import { overBudget, PAGE_SPEED_BUDGET, kib, TBT_SUITE_LIMIT_MS } from "@/tools/page-speed/budget";
import { measureShop } from "@/tools/page-speed/pages";
import { expect, test } from "./fixtures";

// Lighthouse on the throttled mobile profile, three to eight loads per page, against the
// worker's production build and the emulator's Stripe.js: the checkout with a
// cart, the shop and an order's confirmation keep the budget (tools/page-speed).
// A project of its own that `npm test` runs last and alone (scripts/test.mjs). LCP and TBT are
// simulated from each task's CPU time and are the least of several loads (tools/page-speed/lighthouse.ts),
// so a busy host does not move them and a page that does more work still fails.

test(
  "The checkout, the shop and the confirmation keep the speed budget on a throttled phone",
  { tag: "@page-speed" },
  async ({ workerApp }) => {
    test.setTimeout(900_000);
    const speeds = await measureShop(workerApp.url);
    expect(speeds.map((s) => s.page)).toEqual(["/", "/checkout", "/orders/{id}"]);
    for (const s of speeds) {
      const line = `LCP ${Math.round(s.lcpMs)} ms · CLS ${s.cls.toFixed(3)} · TBT ${Math.round(s.tbtMs)} ms · JS ${kib(s.scriptBytes)} in ${s.scripts} scripts · score ${s.score} · CPU ×${s.cpuSlowdown} (host index ${s.benchmarkIndex}) · tasks ${s.taskWallMs} ms wall, ${s.taskCpuMs} ms CPU · loads ${JSON.stringify(s.loads)}`;
      test.info().annotations.push({ type: `page-speed ${s.page}`, description: line });
      console.log(`[page-speed] ${s.page}: ${line}; LCP element ${s.lcpElement ?? "none"}`);
      for (const shifted of s.shifted ?? []) console.log(`[page-speed] ${s.page}: shifted ${shifted}`);
      for (const task of s.longTasks ?? []) console.log(`[page-speed] ${s.page}: long task ${task}`);
    }
    const scriptBudget = (s: { page: string }) =>
      s.page === "/checkout" ? PAGE_SPEED_BUDGET.checkoutScriptBytes : undefined;
    // The whole budget, reported; TBT fails the suite only past TBT_SUITE_LIMIT_MS (tools/page-speed/budget.ts).
    for (const line of speeds.flatMap((s) => overBudget(s, scriptBudget(s))))
      console.log(`[page-speed] over the budget: ${line}`);
    expect(
      speeds.flatMap((s) => overBudget(s, scriptBudget(s), TBT_SUITE_LIMIT_MS)),
      "past the speed budget",
    ).toEqual([]);
  },
);
