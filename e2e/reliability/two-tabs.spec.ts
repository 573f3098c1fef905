import { ATTEMPT_STORAGE_KEY } from "@/lib/checkout-client/attempt-store";
import { expect, recordCheckoutTraffic, test } from "../fixtures";
import { addToCart, confirmationHeading, goToCheckout, payButton, paymentStatus } from "../shop";
import { expectChargedOnce, onlyKey, orderIdOf, outcomes } from "./evidence";

test("Two tabs carrying the same open attempt charge the card once and confirm the same order", async ({
  page,
  context,
  shopper,
  emulator,
}) => {
  const traffic = recordCheckoutTraffic(context);
  await page.goto("/");
  await addToCart(page, "Classic Tee");
  await addToCart(page, "Merino Socks");
  await goToCheckout(page);
  const second = await context.newPage();
  await second.goto("/");
  // Held (the gate) until the second tab has joined while the first is still being charged.
  await emulator.faults({ gate: true });

  await payButton(page).click();
  await expect.poll(async () => (await emulator.stats()).delayed).toBe(1);
  const attempt = await page.evaluate((k) => sessionStorage.getItem(k), ATTEMPT_STORAGE_KEY);
  expect(attempt).not.toBeNull();

  // As if duplicated now: same cookies and cart, and a copy of this tab's sessionStorage.
  await second.evaluate(([k, v]) => sessionStorage.setItem(k, v), [ATTEMPT_STORAGE_KEY, attempt!] as const);
  // The copied tab carries an open attempt: its checkout leads with the payment, no card form to type into.
  await goToCheckout(second, null);
  await expect(paymentStatus(second)).toContainText(/Paying…|Still processing/);
  await expect.poll(() => traffic.exchanges.find((e) => e.tab === 2)?.status).toBe(409);
  await emulator.faults({ gate: false });

  await expect(confirmationHeading(page)).toBeVisible({ timeout: 30_000 });
  await expect(confirmationHeading(second)).toBeVisible({ timeout: 30_000 });
  await expect.poll(async () => outcomes((await traffic.settled()).filter((e) => e.status === 201))).toHaveLength(2);
  const exchanges = await traffic.settled();
  const key = onlyKey(exchanges);
  const firstTab = exchanges.filter((e) => e.tab === 1);
  const secondTab = exchanges.filter((e) => e.tab === 2);
  expect(secondTab.length).toBeGreaterThanOrEqual(2);
  // The second tab's copy was answered as a duplicate while the first was charging, then with the first's result.
  expect(secondTab[0]!.status).toBe(409);
  expect(outcomes(secondTab).at(-1)).toBe("201 replayed");
  // Both tabs were answered with the one order (the first tab's own request may have
  // outlived the browser's timeout, in which case it too learnt the result from a replay).
  const orderId = orderIdOf(firstTab.find((e) => e.status === 201));
  expect(orderIdOf(secondTab.at(-1))).toBe(orderId);
  await expect(page).toHaveURL(`/orders/${orderId}`);
  await expect(second).toHaveURL(`/orders/${orderId}`);

  expect(await emulator.stats()).toMatchObject({ charges: 1, gated: 1 });
  await expectChargedOnce(shopper, { amountCents: 2500 + 1400, key, orderId });
});

test("A second tab's late confirmation does not take items added after the payment out of the cart", async ({
  page,
  context,
  shopper,
  emulator,
}) => {
  const traffic = recordCheckoutTraffic(context);
  await page.goto("/");
  await addToCart(page, "Classic Tee");
  await goToCheckout(page);
  const second = await context.newPage();
  await second.goto("/");
  // The second tab's first request goes through (and is answered 409); its polls
  // are held back until the shopper has shopped on in the first tab.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  await second.route("**/api/checkout", async (route) => {
    if (route.request().method() === "POST" && traffic.exchanges.filter((e) => e.tab === 2).length > 1) {
      held += 1;
      await released;
    }
    await route.fallback().catch(() => undefined); // the page may have given up on a held request (its timeout)
  });
  await emulator.faults({ gate: true });

  await payButton(page).click();
  await expect.poll(async () => (await emulator.stats()).delayed).toBe(1);
  const attempt = await page.evaluate((k) => sessionStorage.getItem(k), ATTEMPT_STORAGE_KEY);
  await second.evaluate(([k, v]) => sessionStorage.setItem(k, v), [ATTEMPT_STORAGE_KEY, attempt!] as const);
  await goToCheckout(second, null);
  await expect.poll(() => traffic.exchanges.find((e) => e.tab === 2)?.status).toBe(409);
  await emulator.faults({ gate: false });
  await expect(confirmationHeading(page)).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => held).toBeGreaterThanOrEqual(1);

  // Shopping on in the first tab: the same product again, for a new order.
  await page.getByRole("link", { name: "Continue shopping" }).click();
  await addToCart(page, "Classic Tee");
  const cartLink = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Cart/ });
  await expect(cartLink).toHaveAccessibleName("Cart 1 item");

  release();
  await expect(confirmationHeading(second)).toBeVisible();
  expect(outcomes(traffic.exchanges.filter((e) => e.tab === 2)).at(-1)).toBe("201 replayed");
  // The second tab settled (it shows the confirmation) without removing the paid items a second time.
  expect(await second.evaluate(() => localStorage.getItem("never-twice:cart"))).toBe(
    JSON.stringify([{ sku: "tee-classic", quantity: 1 }]),
  );
  await expect(cartLink).toHaveAccessibleName("Cart 1 item");
  await expectChargedOnce(shopper, { amountCents: 2500, key: onlyKey(await traffic.settled()) });
});
