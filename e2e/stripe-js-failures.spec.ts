import type { Page, Route } from "@playwright/test";
import { expect, test } from "./fixtures";
import { addToCart, bankFrame, CARDS, confirmationHeading, goToCheckout, payButton, paymentStatus } from "./shop";

/**
 * Stripe.js as it fails (docs/contract.md, "3-D Secure"): `handleNextAction`
 * throws when the intent no longer waits for the shopper, and may reject, lose
 * its connection or have its window closed. The emulator's stand-in does each
 * when told to (the `stripeJs` fault); the page then asks the shop and shows
 * the truth, never "Waiting for your bank" over a window that is gone.
 */
const bankChallenge = (page: Page) => page.locator('iframe[title="3D Secure authentication"]');

/** Browser reads of a PaymentIntent with the publishable key: what Stripe.js does before it handles a next action. */
function recordIntentReads(page: Page): string[] {
  const reads: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "GET" && /\/v1\/payment_intents\/pi_\w+$/.test(new URL(request.url()).pathname))
      reads.push(request.url());
  });
  return reads;
}

for (const failure of ["reject", "network", "closed"] as const) {
  test(`A bank challenge whose Stripe.js call fails (${failure}) shows that the bank still waits, and the shopper finishes it`, async ({
    page,
    emulator,
    shopper,
  }) => {
    await emulator.faults({ stripeJs: { failure, times: 1 } });
    await page.goto("/");
    await addToCart(page, "Enamel Mug");
    await goToCheckout(page, CARDS.threeDSecure);
    await payButton(page).click();

    await expect(paymentStatus(page)).toContainText("Your bank is still waiting for you");
    await expect(paymentStatus(page)).not.toContainText("Waiting for your bank.");
    await expect(bankChallenge(page)).toHaveCount(0);
    const faults = await emulator.snapshot();
    expect(faults.stats.stripeJsFailures).toBe(1); // the stand-in was told to fail, once
    expect(faults.stripeJs).toBeNull();
    expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["requires_action"]);

    await page.getByRole("button", { name: "Continue with your bank" }).click();
    await bankFrame(page).getByRole("button", { name: "Complete authentication" }).click();
    await expect(confirmationHeading(page)).toBeVisible();
    expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["succeeded"]);
    expect((await shopper.orders()).map((o) => o.status)).toEqual(["paid"]);
  });
}

test("A checkout reloaded after the shopper authenticated, before the shop heard of it, shows the payment paid once", async ({
  page,
  emulator,
  shopper,
}) => {
  // The page's report to the shop is held, and Stripe's events are not sent: the reload comes
  // after the bank, before the shop knows.
  await emulator.webhooks({ url: null });
  let held: Route | null = null;
  const reported = new Promise<void>((resolve) =>
    page.route("**/api/checkout/*/return", async (route) => {
      if (held) return route.continue();
      held = route;
      resolve();
    }),
  );
  const reads = recordIntentReads(page);
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page, CARDS.threeDSecure);
  await payButton(page).click();
  await bankFrame(page).getByRole("button", { name: "Complete authentication" }).click();
  await reported;
  expect((await shopper.paymentIntents()).map((i) => i.status)).not.toContain("requires_action");
  expect((await shopper.orders()).map((o) => o.status)).not.toContain("paid"); // the shop has not heard yet

  await page.reload();
  await expect(confirmationHeading(page)).toBeVisible();
  // The reloaded page's Stripe.js read the intent, found it no longer waiting, and threw: no second challenge.
  expect(reads).toHaveLength(2);
  await expect(bankChallenge(page)).toHaveCount(0);
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["succeeded"]);
  expect((await shopper.orders()).map((o) => o.status)).toEqual(["paid"]);
});
