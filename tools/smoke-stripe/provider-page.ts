import type { Frame, Page } from "@playwright/test";
import { JourneyFailure } from "./shop";

export type Authentication = "complete" | "fail";

/**
 * The buttons of the provider's 3-D Secure test page: the emulator's say
 * "Complete authentication" / "Fail authentication" on the page itself;
 * Stripe's test page (hooks.stripe.com) shows "Complete" / "Fail" inside an
 * iframe, possibly nested. A bank redirect's test page (iDEAL, Bancontact)
 * says "Authorize test payment" / "Fail test payment". So every frame of the page is searched, by role,
 * for a button (or link) with either wording, whatever its case.
 */
const NAMES: Record<Authentication, RegExp> = {
  complete: /^\s*(complete( authentication)?|authorize test payment)\s*$/i,
  fail: /^\s*fail( authentication| test payment)?\s*$/i,
};

/** `shopOrigin`: after a redirect, being back there means the press was made; null: the challenge is in place (a frame). */
export async function pressOnProviderPage(
  page: Page,
  action: Authentication,
  shopOrigin: string | null,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // A press whose click raced the navigation it caused has still been made.
    if (shopOrigin !== null && new URL(page.url()).origin === shopOrigin) return;
    for (const frame of page.frames()) {
      if (await pressIn(frame, NAMES[action])) return;
    }
    await page.waitForTimeout(250);
  }
  throw new JourneyFailure(
    `no "${action === "complete" ? "Complete" : "Fail"}" button on the provider's page at ${page.url()} within ${timeoutMs / 1000} s`,
  );
}

async function pressIn(frame: Frame, name: RegExp): Promise<boolean> {
  const target = frame.getByRole("button", { name }).or(frame.getByRole("link", { name })).first();
  try {
    if (!(await target.isVisible())) return false;
    await target.click({ timeout: 5_000 });
    return true;
  } catch {
    // The frame navigated or went away while being looked at: look again.
    return false;
  }
}
