import { expectNoSeriousA11yViolations } from "./accessibility";
import { expect, test } from "./fixtures";
import { addToCart, confirmationHeading, goToCheckout, payButton, paymentStatus } from "./shop";

// Every page a shopper can reach, checked by axe-core in the state a shopper sees it.

test(
  "The shop and the checkout with a cart have no serious accessibility violation",
  { tag: "@phone" },
  async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("list", { name: "Products" }).getByRole("listitem").first()).toBeVisible();
    await expectNoSeriousA11yViolations(page, "the shop");

    await addToCart(page, "Classic Tee");
    await goToCheckout(page);
    await expect(payButton(page)).toBeEnabled();
    await expectNoSeriousA11yViolations(page, "the checkout");
  },
);

test("A declined payment's message has no serious accessibility violation", { tag: "@phone" }, async ({ page }) => {
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page);
  await page.getByRole("radio", { name: /Visa — insufficient funds/ }).check();
  await payButton(page).click();
  await expect(paymentStatus(page)).toContainText("Card declined");
  await expectNoSeriousA11yViolations(page, "the checkout after a decline");
});

test(
  "The order confirmation and the order history have no serious accessibility violation",
  { tag: "@phone" },
  async ({ page }) => {
    await page.goto("/");
    await addToCart(page, "Merino Socks");
    await goToCheckout(page);
    await payButton(page).click();
    await expect(confirmationHeading(page)).toBeVisible();
    await expectNoSeriousA11yViolations(page, "the order confirmation");

    await page.goto("/orders");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expectNoSeriousA11yViolations(page, "the order history");
  },
);

test("The reliability lab has no serious accessibility violation", { tag: "@phone" }, async ({ page }) => {
  await page.goto("/lab");
  await expect(page.getByRole("heading", { name: "Reliability lab", level: 1 })).toBeVisible();
  await expectNoSeriousA11yViolations(page, "the lab");
});

test(
  "The 3-D Secure pages (the emulator's bank page, the return, a failed authentication) have no serious accessibility violation",
  { tag: "@phone" },
  async ({ page }) => {
    await page.goto("/");
    await addToCart(page, "Enamel Mug");
    await goToCheckout(page);
    await page.getByRole("radio", { name: /Visa — 3-D Secure/ }).check();
    await payButton(page).click();
    await expect(page.getByRole("button", { name: "Fail authentication" })).toBeVisible();
    await expectNoSeriousA11yViolations(page, "the emulator's authentication page");
    await page.getByRole("button", { name: "Fail authentication" }).click();
    await expect(page.getByRole("heading", { name: "Authentication failed", level: 1 })).toBeVisible();
    await expectNoSeriousA11yViolations(page, "the return page after a failed authentication");
  },
);
