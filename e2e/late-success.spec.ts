import { createStripeClient } from "@/lib/payments/stripe-client";
import { deliver, stripeEvent } from "../tests/helpers/webhooks";
import { expect, test } from "./fixtures";
import { E2E } from "./settings";
import { addToCart, CARDS, goToCheckout, payButton, paymentStatus, typeCard } from "./shop";

test("A payment that succeeds after the shopper was told “declined” is refunded once, and the order page says so", async ({
  page,
  shopper,
  emulator,
  workerApp,
}) => {
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page);
  await typeCard(page, CARDS.declined);
  await payButton(page).click();
  await expect(paymentStatus(page)).toContainText("Card declined");
  const [declined] = await shopper.paymentIntents();
  expect(declined).toMatchObject({ status: "requires_payment_method" });

  // A late confirmation succeeds behind the shop's back; Stripe tells the shop, twice, by webhook.
  const stripe = createStripeClient({ secretKey: workerApp.apiKey, apiBase: E2E.emulatorUrl });
  const late = await stripe.paymentIntents.confirm(declined!.id, { payment_method: "pm_card_visa" });
  expect(late.status).toBe("succeeded");
  const event = stripeEvent("payment_intent.succeeded", late);
  for (let i = 0; i < 2; i++) expect((await deliver(workerApp.url, event)).status).toBe(200);
  await expect.poll(async () => (await shopper.orders())[0]?.refundReason).toBe("late_success");

  const [order] = await shopper.orders();
  await page.goto(`/orders/${order!.id}`);
  await expect(page.getByRole("heading", { name: "Payment declined" })).toBeVisible();
  await expect(
    page.getByText("This payment succeeded after the attempt was recorded as failed; it was refunded."),
  ).toBeVisible();
  await expect(page.getByText("Refunded", { exact: true })).toBeVisible();
  expect(await emulator.stats()).toMatchObject({ charges: 1, refunds: 1 });
});
