import { expectNoSeriousA11yViolations } from "./accessibility";
import { expect, test } from "./fixtures";
import { money } from "./settings";
import {
  addToCart,
  bankFrame,
  CARDS,
  cardFrame,
  confirmationHeading,
  goToCheckout,
  payButton,
  paymentStatus,
  typeCard,
} from "./shop";

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
  await typeCard(page, CARDS.insufficientFunds);
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

test(
  "The card form says what is missing, announced, and a keyboard alone can pay",
  { tag: "@phone" },
  async ({ page, shopper }) => {
    await page.goto("/");
    await addToCart(page, "Classic Tee");
    await goToCheckout(page, null);
    await payButton(page).click();
    // The element's own errors, each tied to its field and announced; nothing reached the shop.
    const frame = cardFrame(page);
    await expect(frame.getByRole("alert").filter({ hasText: "Your card number is incomplete." })).toBeVisible();
    await expect(frame.locator('input[name="number"]')).toHaveAttribute("aria-invalid", "true");
    await expect(frame.locator('input[name="number"]')).toHaveAccessibleDescription("Your card number is incomplete.");
    await expectNoSeriousA11yViolations(page, "the checkout with the card form's errors");
    expect(await shopper.orders()).toEqual([]);

    await typeCard(page, "4242 4242 4242 4241");
    await frame.locator('input[name="cvc"]').focus(); // leaving the number shows its check
    await expect(frame.getByRole("alert").filter({ hasText: "Your card number is invalid." })).toBeVisible();

    // Keyboard only: the number field, then Tab from field to field and on to Pay.
    await frame.locator('input[name="number"]').focus();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("4242424242424242");
    await page.keyboard.press("Tab");
    await page.keyboard.type("1234");
    await page.keyboard.press("Tab");
    await page.keyboard.type("123");
    await page.keyboard.press("Tab");
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("10001");
    await page.keyboard.press("Tab");
    await expect(payButton(page)).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(confirmationHeading(page)).toBeVisible();
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
    await typeCard(page, CARDS.threeDSecure);
    await payButton(page).click();
    await expect(bankFrame(page).getByRole("button", { name: "Fail authentication" })).toBeVisible();
    await expectNoSeriousA11yViolations(page, "the checkout with the bank's challenge over it");
    await bankFrame(page).getByRole("button", { name: "Fail authentication" }).click();
    await expect(paymentStatus(page)).toContainText("Authentication failed");
    await expectNoSeriousA11yViolations(page, "the checkout after a failed authentication");
  },
);

test(
  "The iDEAL tab, the bank's page and the return after a failure have no serious accessibility violation",
  { tag: "@phone" },
  async ({ page }) => {
    await page.goto("/");
    await addToCart(page, "Enamel Mug");
    await goToCheckout(page, null);
    await cardFrame(page).getByRole("tab", { name: "iDEAL" }).click();
    await expectNoSeriousA11yViolations(page, "the checkout on the iDEAL tab");
    await payButton(page).click();
    const fail = page.getByRole("button", { name: "Fail test payment" });
    await expect(fail).toBeVisible();
    await expectNoSeriousA11yViolations(page, "the bank's page");
    await fail.click();
    await expect(page.getByRole("heading", { name: "Authentication failed", level: 1 })).toBeVisible();
    await expectNoSeriousA11yViolations(page, "the return page after a failure at the bank");
  },
);

test(
  "The policies, an unknown order and a refused quantity have no serious accessibility violation",
  { tag: "@phone" },
  async ({ page }) => {
    await page.goto("/");
    const footer = page.getByRole("navigation", { name: "Policies" });
    for (const [link, heading] of [
      ["Shipping", "Shipping"],
      ["Returns and refunds", "Returns and refunds"],
      ["Privacy", "Privacy"],
      ["Terms", "Terms"],
    ] as const) {
      await footer.getByRole("link", { name: link }).click();
      await expect(page.getByRole("heading", { name: heading, level: 1 })).toBeVisible();
      // Next streams a page's metadata after its body: axe reads the title once it is there.
      await expect(page).toHaveTitle(new RegExp(heading));
      await expectNoSeriousA11yViolations(page, `the ${link} policy`);
    }

    // An order this browser has none under is not found: the status says so, not only the page.
    const unknown = await page.goto("/orders/00000000-0000-4000-8000-000000000000");
    expect(unknown?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Order not found", level: 1 })).toBeVisible();
    await expectNoSeriousA11yViolations(page, "an unknown order");
    expect((await page.goto("/orders/not-an-id"))?.status()).toBe(404);

    // 100 is refused where it was typed, stays on screen, and holds Pay until it is fixed.
    await page.goto("/");
    await addToCart(page, "Classic Tee");
    await goToCheckout(page);
    const quantity = page.getByLabel("Quantity of Classic Tee");
    await quantity.fill("100");
    await quantity.blur();
    await expect(page.getByRole("alert").filter({ hasText: "Choose 1 to 99." })).toBeVisible();
    await expect(quantity).toHaveValue("100");
    await expect(quantity).toHaveAttribute("aria-invalid", "true");
    await expect(payButton(page)).toBeDisabled();
    await expectNoSeriousA11yViolations(page, "the checkout with a refused quantity");
    await quantity.fill("3");
    await expect(page.getByRole("alert").filter({ hasText: "Choose 1 to 99." })).toHaveCount(0);
    await expect(payButton(page)).toHaveText(`Pay ${money(7500)}`);
    await expect(payButton(page)).toBeEnabled();
  },
);
