import { AxeBuilder } from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/**
 * Runs axe-core on the page as it is now and fails on any serious or
 * critical violation, naming the rule and the elements. Moderate and minor
 * findings are not gated. The pass count is the evidence axe really ran.
 */
export async function expectNoSeriousA11yViolations(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(serious, `serious or critical axe violations on ${where}`).toEqual([]);
  expect(results.passes.length, `axe checked ${where}`).toBeGreaterThan(0);
}
