import { kib, overBudget, PAGE_SPEED_BUDGET } from "@/tools/page-speed/budget";
import { measureShop } from "@/tools/page-speed/pages";
import { goal, type Goal, type Scenario } from "../lib/scenario";

/**
 * Lighthouse (mobile profile, simulated slow 4G and a 4× slower CPU, each
 * task at its CPU time, LCP and TBT the least of 3–8 loads) on each page a
 * purchase crosses: the catalogue, the checkout with a cart (the
 * emulator's Stripe.js in its Payment Element) and an order's confirmation.
 * The goals are the budget's own numbers (tools/page-speed/budget.ts), the
 * same the end-to-end suite asserts.
 */
export const pageSpeed: Scenario = {
  name: "page-speed",
  title: "page speed (Lighthouse, mobile)",
  async run(ctx) {
    const speeds = await measureShop(ctx.appUrl);
    const figures: Record<string, number> = {};
    const goals: Goal[] = [];
    const notes: string[] = [];
    for (const s of speeds) {
      figures[`${s.page} LCP ms`] = Math.round(s.lcpMs);
      figures[`${s.page} CLS ×1000`] = Math.round(s.cls * 1000);
      figures[`${s.page} TBT ms`] = Math.round(s.tbtMs);
      figures[`${s.page} FCP ms`] = Math.round(s.fcpMs);
      figures[`${s.page} JS KiB`] = Math.round(s.scriptBytes / 1024);
      figures[`${s.page} score`] = s.score;
      goals.push(
        goal(`${s.page} LCP ms`, s.lcpMs, "<=", PAGE_SPEED_BUDGET.lcpMs),
        goal(`${s.page} CLS`, s.cls, "<=", PAGE_SPEED_BUDGET.cls),
        goal(`${s.page} TBT ms`, s.tbtMs, "<=", PAGE_SPEED_BUDGET.tbtMs),
      );
      ctx.log(
        `page-speed: ${s.page} LCP ${Math.round(s.lcpMs)} ms, CLS ${s.cls.toFixed(3)}, TBT ${Math.round(s.tbtMs)} ms, JS ${kib(s.scriptBytes)}, score ${s.score}`,
      );
      if (s.page === "/checkout") {
        goals.push(goal("/checkout JS KiB", s.scriptBytes / 1024, "<=", PAGE_SPEED_BUDGET.checkoutScriptBytes / 1024));
      }
      notes.push(...overBudget(s, s.page === "/checkout" ? PAGE_SPEED_BUDGET.checkoutScriptBytes : undefined));
    }
    return { measures: {}, figures, goals, notes };
  },
};
