import { expect, recordCheckoutKeys, test } from "./fixtures";
import { E2E, money } from "./settings";
import {
  addToCart,
  CARDS,
  cardFrame,
  confirmationHeading,
  goToCheckout,
  payButton,
  paymentStatus,
  typeCard,
} from "./shop";

test("A shopper buys two products and sees the confirmation and the order in history", async ({ page, shopper }) => {
  const keys = recordCheckoutKeys(page);
  await page.goto("/");
  await addToCart(page, "Classic Tee", 2);
  await addToCart(page, "Enamel Mug");
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: /^Cart/ })).toHaveAccessibleName("Cart 3 items");

  await goToCheckout(page);
  const lines = page.getByRole("list", { name: "Items in your cart" }).getByRole("listitem");
  await expect(lines).toHaveCount(2);
  await expect(page.getByLabel("Quantity of Classic Tee")).toHaveValue("2");
  await expect(page.getByLabel("Quantity of Enamel Mug")).toHaveValue("1");
  await expect(cardFrame(page).locator('input[name="number"]')).toHaveValue(CARDS.visa);
  await page.getByLabel("Email for your receipt").fill("jo@example.com");
  // 2 × 25.00 + 18.00, priced by the server's catalogue in the shop's currency.
  await payButton(page).click();

  await expect(confirmationHeading(page)).toBeVisible();
  await expect(confirmationHeading(page)).toBeFocused();
  const orderId = new URL(page.url()).pathname.split("/").pop();
  await expect(page.getByRole("row", { name: /Classic Tee/ })).toContainText(money(5000));
  await expect(page.getByRole("row", { name: /Total/ })).toContainText(money(6800));
  // Which card paid, as Stripe named it to the shop, and where the receipt goes.
  await expect(page.getByRole("definition").filter({ hasText: "Visa ending in 4242" })).toBeVisible();
  await expect(page.getByRole("definition").filter({ hasText: "jo@example.com" })).toBeVisible();
  await expect(nav.getByRole("link", { name: /^Cart/ })).toHaveAccessibleName("Cart 0 items");

  const intents = await shopper.paymentIntents();
  expect(intents).toHaveLength(1);
  expect(intents[0]).toMatchObject({
    status: "succeeded",
    amount: 6800,
    currency: E2E.currency,
    metadata: { orderId, idempotencyKey: keys[0] },
    receipt_email: "jo@example.com",
  });
  expect(new Set(keys).size).toBe(1);
  await expect(page.getByText(intents[0]!.id)).toBeVisible();

  await nav.getByRole("link", { name: "Orders", exact: true }).click();
  const orders = page.getByRole("list", { name: "Orders" }).getByRole("listitem");
  await expect(orders).toHaveCount(1);
  await expect(orders.first()).toContainText("Paid");
  await expect(orders.first()).toContainText("2 × Classic Tee, 1 × Enamel Mug");
  await expect(orders.first()).toContainText(money(6800));
  await orders.first().getByRole("link").click();
  await expect(page).toHaveURL(`/orders/${orderId}`);
});

test("A declined card shows the reason and a second try with Visa succeeds with a new key", async ({
  page,
  shopper,
}) => {
  const keys = recordCheckoutKeys(page);
  await page.goto("/");
  await addToCart(page, "Market Tote");
  await goToCheckout(page);

  await typeCard(page, CARDS.insufficientFunds);
  await payButton(page).click();
  await expect(paymentStatus(page)).toContainText("Card declined: The card has insufficient funds.");
  await expect(paymentStatus(page)).toBeFocused();
  await expect(payButton(page)).toBeEnabled();
  const [declined] = await shopper.paymentIntents();
  expect(declined).toMatchObject({
    status: "requires_payment_method",
    amount: 1600,
    last_payment_error: { decline_code: "insufficient_funds" },
  });
  const declinedKey = keys[0]!;
  // One attempt so far (a transient 503 would be retried, with the same key).
  expect(new Set(keys)).toEqual(new Set([declinedKey]));
  const sentForDecline = keys.length;

  await typeCard(page, CARDS.visa);
  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();

  const paidKey = keys.at(-1)!;
  expect(paidKey).not.toBe(declinedKey);
  // The 402 was final: the declined attempt's key was never sent again.
  expect(keys.filter((key) => key === declinedKey)).toHaveLength(sentForDecline);
  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => [i.status, i.metadata.idempotencyKey])).toEqual([
    ["succeeded", paidKey],
    ["requires_payment_method", declinedKey],
  ]);

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Orders", exact: true }).click();
  // One order for the cart's checkout, its declined attempt inside it.
  const orders = page.getByRole("list", { name: "Orders" }).getByRole("listitem");
  await expect(orders).toHaveCount(1);
  await expect(orders.nth(0)).toContainText("Paid");
  await expect(orders.nth(0)).toContainText("2 payment attempts");
  await orders.nth(0).getByRole("link").click();
  const attempts = page.getByRole("list", { name: "Payment attempts" }).getByRole("listitem");
  await expect(attempts).toHaveCount(2);
  await expect(attempts.nth(0)).toContainText("Declined");
  await expect(attempts.nth(1)).toContainText("Paid");
});
