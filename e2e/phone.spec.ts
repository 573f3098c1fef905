import type { Page } from "@playwright/test";
import { expectNoSeriousA11yViolations } from "./accessibility";
import { expect, recordCheckoutTraffic, test } from "./fixtures";
import { expectChargedOnce, onlyKey, orderIdOf } from "./reliability/evidence";
import { addToCart, confirmationHeading, goToCheckout, payButton, watchPresses } from "./shop";

// Runs in the "phone" project only (playwright.config.ts): touch, 360 px wide.

/** Nothing on the page is wider than the screen: no sideways scrolling. */
async function expectFitsScreen(page: Page, where: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(innerWidth, "the phone's viewport").toBe(360);
  expect(scrollWidth, `${where} is no wider than the screen`).toBeLessThanOrEqual(innerWidth);
}

test("On a 360 px phone every page fits the screen", { tag: "@phone" }, async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("list", { name: "Products" }).getByRole("listitem").first()).toBeVisible();
  await expectFitsScreen(page, "the shop");
  await addToCart(page, "Canvas Cap");
  await goToCheckout(page);
  await expectFitsScreen(page, "the checkout");
  await payButton(page).tap();
  await expect(confirmationHeading(page)).toBeVisible();
  await expectFitsScreen(page, "the order confirmation");
  await page.goto("/orders");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectFitsScreen(page, "the order history");
  await page.goto("/lab");
  await expect(page.getByRole("heading", { name: "Reliability lab", level: 1 })).toBeVisible();
  await expectFitsScreen(page, "the lab");
  await page.goto("/policies/privacy");
  await expect(page.getByRole("heading", { name: "Privacy", level: 1 })).toBeVisible();
  await expectFitsScreen(page, "a policy");
});

test("On a 360 px phone the lab's result is on the first screen", { tag: "@phone" }, async ({ page }) => {
  await page.goto("/lab");
  await page.getByRole("button", { name: "Double click", exact: true }).tap();
  await expect(page.getByText("“Double click” finished")).toBeVisible({ timeout: 45_000 });
  // Without scrolling: the run's status and the naive lane's count, the result the lab exists to show.
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  await expect(page.getByText("“Double click” finished")).toBeInViewport();
  const naive = page.getByRole("region", { name: "Naive checkout" });
  await expect(naive.getByLabel("Charges at the gateway", { exact: true })).toHaveText("2");
  await expect(naive.getByLabel("Charges at the gateway", { exact: true })).toBeInViewport();
  await expectFitsScreen(page, "the lab after a run");
  await expectNoSeriousA11yViolations(page, "the lab on a phone after a run");
});

test(
  "On a 360 px phone a double tap on Pay charges the card once",
  { tag: "@phone" },
  async ({ page, shopper, emulator }) => {
    const traffic = recordCheckoutTraffic(page);
    await page.goto("/");
    await addToCart(page, "Classic Tee");
    await goToCheckout(page);
    const presses = await watchPresses(page);
    // The payment's Stripe call takes two seconds, so the second tap lands while the first is paying.
    await emulator.faults({ latencyMs: 2_000 });

    await payButton(page).scrollIntoViewIfNeeded(); // a touch lands on the screen, not below the fold
    const box = (await payButton(page).boundingBox())!;
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    await page.touchscreen.tap(x, y);
    await page.touchscreen.tap(x, y);
    // Both taps reached the page as touches (whether the second found the button
    // already disabled or not), and the first one paid.
    expect((await presses()).pointerDowns).toBe(2);

    await expect(confirmationHeading(page)).toBeVisible();
    const exchanges = await traffic.settled();
    const key = onlyKey(exchanges);
    const paid = exchanges.find((e) => e.status === 201 && !e.replayed);
    expect(await emulator.stats()).toMatchObject({ charges: 1, delayed: 1 });
    await expectChargedOnce(shopper, { amountCents: 2500, key, orderId: orderIdOf(paid) });
  },
);
