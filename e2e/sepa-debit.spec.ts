import { deliverTo } from "../tests/helpers/webhooks";
import { expect, test } from "./fixtures";
import { addToCart, cardFrame, goToCheckout, payButton } from "./shop";

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

  const frame = cardFrame(page);
  await frame.getByRole("tab", { name: "SEPA Debit" }).click();
  await frame.getByLabel("Full name").fill("Jenny Rosen");
  await frame.getByLabel("Email").fill("jenny@example.com");
  await frame.getByLabel("IBAN").fill("DE89 3704 0044 0532 0130 00");
  await expect(frame.getByText(/you authorise \(A\) the shop and Stripe/)).toBeVisible();
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
