import { randomUUID } from "node:crypto";
import { ATTEMPT_STORAGE_KEY, serializeBody } from "../../lib/checkout-client/attempt-store";
import { expect, recordCheckoutKeys, test } from "../fixtures";
import { addToCart, CARDS, confirmationHeading, goToCheckout, payButton, paymentStatus, typeCard } from "../shop";
import { expectChargedOnce } from "./evidence";

test("A tab restored two hours after Pay sends nothing by itself, says the shop has no record, and only a press pays, with a new key", async ({
  page,
  shopper,
  emulator,
}) => {
  const posted = recordCheckoutKeys(page);
  const asked: string[] = [];
  page.on("request", (request) => {
    const { pathname } = new URL(request.url());
    if (request.method() === "GET" && pathname.startsWith("/api/checkout/")) asked.push(pathname);
  });
  await page.goto("/");
  await addToCart(page, "Classic Tee");
  await goToCheckout(page);

  // The tab as the browser restores it: the attempt Pay began two hours ago, for
  // exactly this cart, whose key the shop has since forgotten (or never received).
  const oldKey = randomUUID();
  const attempt = {
    key: oldKey,
    bodyJson: serializeBody({ items: [{ sku: "tee-classic", quantity: 1 }], paymentMethod: "pm_card_visa" }),
    createdAt: Date.now() - 2 * 60 * 60 * 1000,
  };
  await page.evaluate(([storageKey, value]) => sessionStorage.setItem(storageKey, value), [
    ATTEMPT_STORAGE_KEY,
    JSON.stringify(attempt),
  ] as const);
  const requestsBefore = (await emulator.stats()).requests;
  await page.reload();

  await expect(paymentStatus(page)).toContainText("We have no record of this payment — check your orders.");
  await expect(paymentStatus(page).getByRole("link", { name: "your orders" })).toHaveAttribute("href", "/orders");
  await expect(payButton(page)).toBeEnabled();
  // It asked about the old attempt, and posted nothing: the provider heard nothing either.
  expect(asked).toEqual([`/api/checkout/${oldKey}`]);
  expect(posted).toEqual([]);
  expect((await emulator.stats()).requests).toBe(requestsBefore);
  expect(await shopper.paymentIntents()).toEqual([]);
  expect(await shopper.orders()).toEqual([]);

  // The reloaded page's card form is empty, as Stripe's is: the shopper types the card again.
  await typeCard(page, CARDS.visa);
  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();
  expect(posted).toHaveLength(1);
  expect(posted[0]).not.toBe(oldKey);
  await expectChargedOnce(shopper, { amountCents: 2500, key: posted[0]! });
});
