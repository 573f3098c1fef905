import { expect, recordCheckoutKeys, test } from "./fixtures";
import { money } from "./settings";
import { addToCart, confirmationHeading, goToCheckout, payButton, paymentStatus } from "./shop";

// The gateway holds the payment (the gate) until the journey has seen what it came
// for: longer than the browser's per-request timeout, so the page must poll with retries.

test("A slow gateway shows still processing and then the confirmation", async ({ page, shopper, emulator }) => {
  const keys = recordCheckoutKeys(page);
  await page.goto("/");
  await addToCart(page, "Canvas Cap");
  await goToCheckout(page);
  await emulator.faults({ gate: true });

  await payButton(page).click();
  await expect(paymentStatus(page)).toContainText("Paying…");
  await expect(payButton(page)).toBeDisabled();
  await expect(paymentStatus(page)).toContainText(/Still processing — retry \d+/, { timeout: 20_000 });
  await expect(page.getByLabel("Quantity of Canvas Cap")).toBeDisabled();
  await emulator.faults({ gate: false });
  await expect(confirmationHeading(page)).toBeVisible({ timeout: 40_000 });

  expect((await emulator.stats()).gated).toBeGreaterThanOrEqual(1);
  const intents = await shopper.paymentIntents();
  expect(intents).toHaveLength(1);
  expect(intents[0]).toMatchObject({ status: "succeeded", amount: 2200 });
  // Retries happened, all with the attempt's one key.
  expect(keys.length).toBeGreaterThan(1);
  expect(new Set(keys)).toEqual(new Set([intents[0]!.metadata.idempotencyKey]));
});

test(
  "Reloading during a slow payment ends in one paid order",
  { tag: "@phone" },
  async ({ page, shopper, emulator }) => {
    const keys = recordCheckoutKeys(page);
    await page.goto("/");
    await addToCart(page, "Merino Socks", 3);
    await goToCheckout(page);
    await emulator.faults({ gate: true });

    await payButton(page).click();
    await expect(paymentStatus(page)).toContainText("Paying…");
    // Reload only once the charge is underway at the provider.
    await expect.poll(async () => (await emulator.stats()).delayed).toBeGreaterThanOrEqual(1);
    await page.reload();

    // The page picks the attempt up by itself, with the same key.
    await expect(paymentStatus(page)).toContainText(/Paying…|Still processing — retry \d+/);
    await expect(payButton(page)).toHaveCount(0); // the open attempt, its token and key, is what is being paid: no form
    await expect.poll(() => keys.length).toBeGreaterThan(1); // the reloaded page asked again, while held
    await emulator.faults({ gate: false });
    await expect(confirmationHeading(page)).toBeVisible({ timeout: 40_000 });

    const intents = await shopper.paymentIntents();
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({ status: "succeeded", amount: 4200 });
    expect(keys.length).toBeGreaterThan(1);
    expect(new Set(keys)).toEqual(new Set([intents[0]!.metadata.idempotencyKey]));

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Orders", exact: true }).click();
    const orders = page.getByRole("list", { name: "Orders" }).getByRole("listitem");
    await expect(orders).toHaveCount(1);
    await expect(orders.first()).toContainText("Paid");
    await expect(orders.first()).toContainText("3 × Merino Socks");
  },
);

test("An item added in another tab during a slow payment stays in the cart after it is paid", async ({
  page,
  shopper,
  emulator,
}) => {
  await page.goto("/");
  await addToCart(page, "Classic Tee");
  await goToCheckout(page);
  await emulator.faults({ gate: true });
  await payButton(page).click();
  await expect(paymentStatus(page)).toContainText(/Paying…|Still processing/);

  const otherTab = await page.context().newPage();
  await otherTab.goto("/");
  await addToCart(otherTab, "Enamel Mug");
  await otherTab.close();
  await emulator.faults({ gate: false });

  await expect(confirmationHeading(page)).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole("row", { name: /Total/ })).toContainText(money(2500));
  await expect(
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Cart/ }),
  ).toHaveAccessibleName("Cart 1 item");
  expect((await emulator.stats()).gated).toBeGreaterThanOrEqual(1);
  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => [i.status, i.amount])).toEqual([["succeeded", 2500]]);
});
