import { chromium } from "@playwright/test";
import { findBrowser, realBrowserProbes } from "@/scripts/lib/browser";
import { SCENARIOS } from "@/lib/lab/scenarios";

/** Every scenario the lab runs from its page (the kill needs a supervisor, and is no button). */
export const LAB_SCENARIOS = SCENARIOS.filter((s) => s.id !== "kill-mid-charge").map((s) => s.title);

/**
 * Runs the lab's scenarios one after another in Chromium, as a visitor of the
 * demo would, each to its "finished" line; throws when one stopped early.
 */
export async function runLabScenarios(appUrl: string, titles: readonly string[] = LAB_SCENARIOS): Promise<void> {
  const browser = await chromium.launch({ executablePath: findBrowser(realBrowserProbes())?.executablePath });
  try {
    const page = await browser.newPage();
    await page.goto(`${appUrl}/lab`);
    for (const title of titles) {
      await page.getByRole("button", { name: title, exact: true }).click();
      const status = page.getByRole("status").filter({ hasText: `“${title}” finished` });
      await status.waitFor({ timeout: 90_000 });
      const text = (await status.textContent()) ?? "";
      if (text.includes("The run stopped early")) throw new Error(`the lab's "${title}" stopped early: ${text}`);
    }
  } finally {
    await browser.close();
  }
}
