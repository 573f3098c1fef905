import type { Page } from "@playwright/test";
import { deliverTo } from "../tests/helpers/webhooks";
import { expect, recordCheckoutTraffic, test } from "./fixtures";
import { addToCart, cardFrame, CARDS, goToCheckout, payButton, typeCard } from "./shop";

async function fillDebit(page: Page): Promise<void> {
  const frame = cardFrame(page);
  await frame.getByRole("tab", { name: "SEPA Debit" }).click();
  await frame.getByLabel("Full name").fill("Jenny Rosen");
  await frame.getByLabel("Email").fill("jenny@example.com");
  await frame.getByLabel("IBAN").fill("DE89 3704 0044 0532 0130 00");
}

test("A SEPA debit shows the payment on its way, then paid once Stripe decides", async ({
  page,
  shopper,
  emulator,
  workerApp,
}) => {
  await deliverTo(emulator, workerApp.url);
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page, null);

  await fillDebit(page);
  await expect(cardFrame(page).getByText(/you authorise \(A\) the shop and Stripe/)).toBeVisible();
  await payButton(page).click();

  // The order page follows the payment: on its way, nothing to do, no Pay button.
  const heading = page.getByRole("heading", { level: 1 });
  await expect(heading).toHaveText("Your payment is on its way");
  await expect(page.getByRole("button", { name: /^Pay / })).toHaveCount(0);
  await expect(page.getByText(/nothing was charged/i)).toHaveCount(0);
  const [intent] = await shopper.paymentIntents();
  expect(intent).toMatchObject({
    status: "processing",
    payment_method_types: ["card", "sepa_debit", "ideal", "bancontact"],
  });

  expect((await emulator.advanceClock(60)).settled).toBe(1);
  await expect(heading).toHaveText("Thank you — your order is paid");
  expect(await shopper.paymentIntents()).toHaveLength(1);
  const [order] = await shopper.orders();
  expect(order).toMatchObject({ status: "paid", paymentIntentId: intent!.id });
});

test("A second tab pressing Pay while the first tab's debit is processing is shown that payment; one debit", async ({
  page,
  context,
  shopper,
}) => {
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page, null);
  await expect.poll(() => page.evaluate(() => window.localStorage.getItem("never-twice:cart-checkout"))).not.toBeNull();
  // Another tab of the same shopper: the same cart and checkout (localStorage), a card typed.
  const second = await context.newPage();
  await second.goto("/checkout");
  await typeCard(second, CARDS.visa);
  await expect(payButton(second)).toBeEnabled();

  // The first tab's connection is slow: the shop has answered its debit, but the answer has not
  // reached it yet, so the cart is still on the second tab's screen.
  let deliver!: () => void;
  const delivered = new Promise<void>((resolve) => (deliver = resolve));
  const answered = new Promise<number>((resolve) =>
    page.route("**/api/checkout", async (route) => {
      if (route.request().method() !== "POST") return route.fallback();
      const response = await route.fetch();
      resolve(response.status());
      await delivered;
      await route.fulfill({ response });
    }),
  );
  await fillDebit(page);
  await payButton(page).click();
  expect(await answered).toBe(202);
  const [debit] = await shopper.paymentIntents();
  expect(debit).toMatchObject({ status: "processing", payment_method_types: expect.arrayContaining(["sepa_debit"]) });

  const traffic = recordCheckoutTraffic(second);
  await payButton(second).click();
  // Shown the debit on its way: not a card form, not "nothing was charged".
  await expect(second.getByRole("heading", { level: 1 })).toHaveText("Your payment is on its way");
  await expect(payButton(second)).toHaveCount(0);
  await expect(second.getByText(/nothing was charged/i)).toHaveCount(0);
  const [refused] = await traffic.settled();
  expect(refused).toMatchObject({ status: 409, json: { error: "checkout_has_payment", status: "processing" } });
  expect(refused!.json!.key).toBe(debit!.metadata.idempotencyKey);

  deliver();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your payment is on its way");
  expect(new URL(page.url()).pathname).toBe(new URL(second.url()).pathname);
  expect((await shopper.paymentIntents()).map((i) => i.id)).toEqual([debit!.id]);
  const orders = await shopper.orders();
  expect(orders.map((o) => [o.status, o.paymentIntentId, o.attempts.length])).toEqual([["processing", debit!.id, 1]]);
});
