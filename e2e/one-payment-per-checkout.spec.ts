import type { Page } from "@playwright/test";
import { expect, recordCheckoutTraffic, test } from "./fixtures";
import {
  addToCart,
  bankFrame,
  CARDS,
  confirmationHeading,
  goToCheckout,
  payButton,
  paymentStatus,
  typeCard,
} from "./shop";

/**
 * One payment per checkout, in a browser (docs/decisions/0027-one-payment-per-checkout.md):
 * the cart's checkout lives on the server and every tab of the shopper pays
 * the same one.
 */
const heldCheckout = (page: Page) => page.evaluate(() => window.localStorage.getItem("never-twice:cart-checkout"));

test("Two independent tabs pressing Pay on one cart at the same moment: one charge, both show the order", async ({
  page,
  shopper,
}) => {
  const traffic = recordCheckoutTraffic(page.context());
  await page.goto("/");
  await addToCart(page, "Classic Tee");
  await goToCheckout(page);
  await expect.poll(() => heldCheckout(page)).not.toBeNull();

  // Another tab of the same shopper: the same cart (localStorage), its own attempt store (sessionStorage).
  const second = await page.context().newPage();
  await second.goto("/checkout");
  await typeCard(second, CARDS.visa);
  await expect(payButton(second)).toBeEnabled();

  await Promise.all([payButton(page).click(), payButton(second).click()]);

  await expect(confirmationHeading(page)).toBeVisible();
  await expect(confirmationHeading(second)).toBeVisible();
  const orderOf = (p: typeof page) => new URL(p.url()).pathname;
  expect(orderOf(second)).toBe(orderOf(page));

  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => i.status)).toEqual(["succeeded"]);
  // Each tab sent its own key for the one checkout; the shop took one and led the other to it.
  const exchanges = await traffic.settled();
  const body = (e: (typeof exchanges)[number]) => JSON.parse(e.body) as { checkoutId?: string };
  expect(new Set(exchanges.map((e) => e.tab))).toEqual(new Set([1, 2]));
  expect(new Set(exchanges.map(body).map((b) => b.checkoutId)).size).toBe(1);
  expect(exchanges.map(body)[0]!.checkoutId).toEqual(expect.any(String));
  const paid = exchanges.filter((e) => e.status === 201);
  const led = exchanges.filter((e) => e.status === 409 && e.json?.error === "checkout_has_payment");
  expect(paid).toHaveLength(1);
  expect(led.length).toBeGreaterThanOrEqual(1);
  expect(led.every((e) => e.json?.key === paid[0]!.key)).toBe(true);
  expect(intents[0]!.metadata.idempotencyKey).toBe(paid[0]!.key);
  expect(await shopper.orders()).toHaveLength(1);
});

test("Declined twice then paid: one order with three attempts in the history", async ({ page, shopper }) => {
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page, CARDS.declined);
  for (let declined = 1; declined <= 2; declined++) {
    const answered = page.waitForResponse(
      (r) => new URL(r.url()).pathname === "/api/checkout" && r.request().method() === "POST" && r.status() === 402,
    );
    if (declined === 2) await typeCard(page, CARDS.declined);
    await payButton(page).click();
    await answered;
    await expect(paymentStatus(page)).toContainText("Card declined");
  }
  await typeCard(page, CARDS.visa);
  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();

  const attempts = page.getByRole("list", { name: "Payment attempts" }).getByRole("listitem");
  await expect(attempts).toHaveCount(3);
  await expect(attempts.nth(0)).toContainText("Declined");
  await expect(attempts.nth(1)).toContainText("Declined");
  await expect(attempts.nth(2)).toContainText("Paid");

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Orders", exact: true }).click();
  const orders = page.getByRole("list", { name: "Orders" }).getByRole("listitem");
  await expect(orders).toHaveCount(1);
  await expect(orders.first()).toContainText("Paid");
  await expect(orders.first()).toContainText("3 payment attempts");
  const [order] = await shopper.orders();
  expect(order!.attempts.map((a) => a.status)).toEqual(["failed", "failed", "paid"]);
  expect(new Set(order!.attempts.map((a) => a.key)).size).toBe(3);
  expect((await shopper.paymentIntents()).filter((i) => i.status === "succeeded")).toHaveLength(1);
});

test("A tab led to another tab's payment that waits for the bank opens the challenge again, and pays once", async ({
  page,
  shopper,
}) => {
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page, CARDS.threeDSecure);
  await payButton(page).click();
  await expect(bankFrame(page).getByRole("heading", { name: "3D Secure test payment page" })).toBeVisible();

  // A second tab presses Pay on the same cart: the checkout has a payment, the first tab's, waiting for the bank.
  const second = await page.context().newPage();
  await second.goto("/checkout");
  await typeCard(second, CARDS.visa);
  await payButton(second).click();
  await expect(paymentStatus(second)).toContainText("Your bank is still waiting for you");
  await page.close(); // the tab that began it is gone

  await second.getByRole("button", { name: "Continue with your bank" }).click();
  await bankFrame(second).getByRole("button", { name: "Complete authentication" }).click();
  await expect(confirmationHeading(second)).toBeVisible();
  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => i.status)).toEqual(["succeeded"]);
  expect(await shopper.orders()).toHaveLength(1);
});
