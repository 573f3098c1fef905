import { expect, test } from "./fixtures";
import { addToCart, bankFrame, CARDS, confirmationHeading, goToCheckout, payButton, paymentStatus } from "./shop";

/**
 * The README's screenshots, from the real app. Runs only with SCREENSHOTS=1
 * so ordinary runs never rewrite them:
 *   SCREENSHOTS=1 npx playwright test screenshots
 */
test.skip(!process.env.SCREENSHOTS, "set SCREENSHOTS=1 to retake the README's screenshots");
test.use({ viewport: { width: 1200, height: 860 }, deviceScaleFactor: 1 });

test("Screenshots: checkout while processing, and the confirmation", async ({ page, emulator }) => {
  await page.goto("/");
  await addToCart(page, "Classic Tee", 2);
  await addToCart(page, "Enamel Mug");
  await addToCart(page, "Dot-grid Notebook");
  await goToCheckout(page);
  await emulator.faults({ latencyMs: 12_000 });

  await payButton(page).click();
  await expect(paymentStatus(page)).toContainText(/Still processing — retry [1-9]/, { timeout: 20_000 });
  await page.mouse.move(0, 0);
  await page.screenshot({ path: "docs/screenshots/checkout-processing.png", animations: "disabled" });

  await expect(confirmationHeading(page)).toBeVisible({ timeout: 40_000 });
  await page.screenshot({ path: "docs/screenshots/confirmation.png", animations: "disabled" });
});

test("Screenshots: the card in the Payment Element, and 3-D Secure over the checkout", async ({ page }) => {
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page, CARDS.threeDSecure);
  await page.mouse.move(0, 0);
  await page.screenshot({ path: "docs/screenshots/checkout-card.png", animations: "disabled" });
  await payButton(page).click();
  await expect(bankFrame(page).getByRole("button", { name: "Complete authentication" })).toBeVisible();
  await page.screenshot({ path: "docs/screenshots/three-d-secure.png", animations: "disabled" });
  await bankFrame(page).getByRole("button", { name: "Complete authentication" }).click();
  await expect(confirmationHeading(page)).toBeVisible();
});
