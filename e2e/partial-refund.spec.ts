import { createStripeClient } from "@/lib/payments/stripe-client";
import { deliver, stripeEvent } from "../tests/helpers/webhooks";
import { expect, test } from "./fixtures";
import { E2E, money } from "./settings";
import { addToCart, confirmationHeading, goToCheckout, payButton } from "./shop";

test("A 1.00 refund of a paid order leaves it paid, and the order page says it was partially refunded", async ({
  page,
  shopper,
  emulator,
  workerApp,
}) => {
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page);
  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();
  const [paid] = await shopper.paymentIntents();
  expect(paid).toMatchObject({ status: "succeeded" });

  // Support refunds 1.00 in the Dashboard; Stripe tells the shop by webhook.
  const stripe = createStripeClient({ secretKey: workerApp.apiKey, apiBase: E2E.emulatorUrl });
  const refund = await stripe.refunds.create({ payment_intent: paid!.id, amount: 100 });
  expect((await deliver(workerApp.url, stripeEvent("refund.created", refund))).status).toBe(200);
  await expect.poll(async () => (await shopper.orders())[0]?.refund).toBe("partial");

  const [order] = await shopper.orders();
  expect(order).toMatchObject({ status: "paid", refundedCents: 100, refundedAt: null });
  await page.goto(`/orders/${order!.id}`);
  await expect(confirmationHeading(page)).toBeVisible();
  await expect(page.getByText(`Partially refunded: ${money(100)} of ${money(order!.amountCents)}`)).toBeVisible();
  expect(await emulator.stats()).toMatchObject({ charges: 1, refunds: 1 });
});
