import { ATTEMPT_STORAGE_KEY, serializeBody } from "@/lib/checkout-client/attempt-store";
import { expect, recordCheckoutTraffic, test } from "../fixtures";
import {
  addToCart,
  CARDS,
  confirmationHeading,
  goToCheckout,
  payButton,
  paymentStatus,
  typeCard,
  watchPresses,
} from "../shop";
import { onlyKey, orderIdOf, outcomes } from "./evidence";

test("A decline is replayed to the repeated press without reaching the bank again, and Visa then pays once with a new key", async ({
  page,
  shopper,
  emulator,
}) => {
  const traffic = recordCheckoutTraffic(page);
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page);
  const presses = await watchPresses(page);
  await typeCard(page, CARDS.declined);
  // Slow enough that the repeated press arrives while the bank is still deciding.
  await emulator.faults({ latencyMs: 2_000 });

  await payButton(page).evaluate((button: HTMLButtonElement) => {
    button.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
    button.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
  });
  expect((await presses()).submits).toBe(2);
  await expect(paymentStatus(page)).toContainText("Card declined: Your bank declined the payment.");
  await expect(payButton(page)).toBeEnabled();
  await expect
    .poll(async () =>
      outcomes(await traffic.settled())
        .filter((o) => o.startsWith("402"))
        .sort(),
    )
    .toEqual(["402", "402 replayed"]);
  const declined = [...(await traffic.settled())];
  const declinedKey = onlyKey(declined);
  expect(declined.filter((e) => e.status === 409).length).toBe(declined.length - 2);
  expect(declined.find((e) => e.replayed)!.json).toMatchObject({
    error: "card_declined",
    declineCode: "generic_decline",
  });
  expect(await emulator.stats()).toMatchObject({ declines: 1, charges: 0 });
  const ledgerAfterDecline = await shopper.paymentIntents();
  expect(
    ledgerAfterDecline.map((i) => [i.status, i.metadata.idempotencyKey, i.last_payment_error?.decline_code]),
  ).toEqual([["requires_payment_method", declinedKey, "generic_decline"]]);

  // The same attempt sent once more, byte for byte: the stored 402 comes back, the bank is not asked.
  const requestsBefore = (await emulator.stats()).requests;
  const resent = await page.evaluate(
    async ({ key, body }) => {
      const response = await fetch("/api/checkout", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": key },
        body,
      });
      return {
        status: response.status,
        replayed: response.headers.get("idempotent-replayed"),
        body: await response.json(),
      };
    },
    { key: declinedKey, body: declined[0]!.body },
  );
  expect(resent).toMatchObject({
    status: 402,
    replayed: "true",
    body: { error: "card_declined", declineCode: "generic_decline" },
  });
  expect((await emulator.stats()).requests).toBe(requestsBefore);
  expect(await shopper.paymentIntents()).toEqual(ledgerAfterDecline);

  const beforeVisa = traffic.exchanges.length;
  await emulator.faults({ latencyMs: 0 });
  await typeCard(page, CARDS.visa);
  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();

  const paid = (await traffic.settled()).slice(beforeVisa);
  const paidKey = onlyKey(paid);
  expect(paidKey).not.toBe(declinedKey);
  expect(outcomes(paid)).toEqual(["201"]);
  expect(await emulator.stats()).toMatchObject({ declines: 1, charges: 1 });
  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => [i.status, i.amount, i.metadata.idempotencyKey])).toEqual([
    ["succeeded", 1800, paidKey],
    ["requires_payment_method", 1800, declinedKey],
  ]);
  // One order for the cart's checkout, the declined attempt inside it.
  const orders = await shopper.orders();
  expect(orders.map((o) => [o.status, o.paymentIntentId])).toEqual([["paid", intents[0]!.id]]);
  expect(orders[0]!.attempts.map((a) => [a.status, a.key])).toEqual([
    ["failed", declinedKey],
    ["paid", paidKey],
  ]);
  expect(orders[0]!.id).toBe(orderIdOf(paid[0]));
});

test("A stale key restored with a changed cart is refused with a clear message, charges nothing, and the next press pays once", async ({
  page,
  shopper,
  emulator,
}) => {
  const traffic = recordCheckoutTraffic(page);
  // An earlier purchase whose key the server has recorded for another cart.
  await page.goto("/");
  await addToCart(page, "Classic Tee");
  await goToCheckout(page);
  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();
  const oldKey = onlyKey(await traffic.settled());
  const [oldIntent] = await shopper.paymentIntents();
  expect(oldIntent).toMatchObject({ status: "succeeded", amount: 2500 });

  await page.getByRole("link", { name: "Continue shopping" }).click();
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page);
  // Restored from an old session: the open attempt holds the old key, for the cart on screen now.
  await page.evaluate(([storageKey, attempt]) => sessionStorage.setItem(storageKey, attempt), [
    ATTEMPT_STORAGE_KEY,
    JSON.stringify({
      key: oldKey,
      bodyJson: serializeBody({ items: [{ sku: "mug-enamel", quantity: 1 }], paymentMethod: "pm_card_visa" }),
      createdAt: Date.now(),
    }),
  ] as const);
  const requestsBefore = (await emulator.stats()).requests;
  const sentBefore = traffic.exchanges.length;

  await payButton(page).click();
  await expect(paymentStatus(page)).toContainText(
    "This payment attempt no longer matches your cart, so it was not charged again. Press Pay to start a new payment.",
  );
  await expect(payButton(page)).toBeEnabled();
  const refused = (await traffic.settled()).slice(sentBefore);
  expect(outcomes(refused)).toEqual(["422"]);
  expect(refused[0]).toMatchObject({ key: oldKey, json: { error: "idempotency_key_reuse" } });
  // Refused before any payment: the provider was not even asked.
  expect((await emulator.stats()).requests).toBe(requestsBefore);
  expect((await shopper.paymentIntents()).map((i) => i.id)).toEqual([oldIntent!.id]);
  expect(await page.evaluate((k) => sessionStorage.getItem(k), ATTEMPT_STORAGE_KEY)).toBeNull();

  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();
  const fresh = (await traffic.settled()).slice(sentBefore + 1);
  const freshKey = onlyKey(fresh);
  expect(freshKey).not.toBe(oldKey);
  expect(outcomes(fresh)).toEqual(["201"]);
  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => [i.status, i.amount, i.metadata.idempotencyKey])).toEqual([
    ["succeeded", 1800, freshKey],
    ["succeeded", 2500, oldKey],
  ]);
  expect((await shopper.orders()).map((o) => [o.status, o.amountCents])).toEqual([
    ["paid", 1800],
    ["paid", 2500],
  ]);
});
