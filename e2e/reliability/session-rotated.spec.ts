import { ATTEMPT_STORAGE_KEY } from "../../lib/checkout-client/attempt-store";
import { expect, recordCheckoutTraffic, test } from "../fixtures";
import { addToCart, confirmationHeading, goToCheckout, payButton, paymentStatus } from "../shop";
import { expectChargedOnce, onlyKey, outcomes } from "./evidence";

test("A session rotated during a slow payment keeps the attempt, tells the shopper, and never sends it under another session", async ({
  page,
  context,
  shopper,
  emulator,
}) => {
  test.setTimeout(90_000);
  const traffic = recordCheckoutTraffic(page);
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page);
  // The payment is held at the gateway (the gate): the page's first request gives up after 5 s and retries.
  await emulator.faults({ gate: true });

  await payButton(page).click();
  await expect.poll(async () => (await emulator.stats()).delayed).toBeGreaterThanOrEqual(1); // the payment is at the slow gateway
  // The cookie is replaced by one this shop cannot open: SESSION_SECRET rotated,
  // or an instance with a secret of its own behind the load balancer.
  const original = (await context.cookies()).find((cookie) => cookie.name === "checkout_session")!;
  expect(original).toBeDefined();
  await context.addCookies([{ ...original, value: "Fe26.2*1*sealed-with-another-secret*x" }]);

  await expect(paymentStatus(page)).toContainText("Your session with the shop ended during this payment.");
  const sent = await traffic.settled();
  expect(outcomes(sent)).toEqual(["failed: net::ERR_ABORTED", "401"]);
  await emulator.faults({ gate: false });
  const key = onlyKey(sent);
  // The attempt stays open, with its key; the cart stays locked, so no second attempt can start.
  expect(
    JSON.parse((await page.evaluate((k) => sessionStorage.getItem(k), ATTEMPT_STORAGE_KEY)) ?? "null"),
  ).toMatchObject({ key });
  await expect(payButton(page)).toBeDisabled();
  // The first request's payment finishes at the gateway regardless: one charge.
  await expect
    .poll(async () => (await shopper.paymentIntents()).map((i) => i.status), { timeout: 20_000 })
    .toEqual(["succeeded"]);

  // A reload starts another guest session (the old cookie cannot be opened): the
  // open attempt is not sent under it, and the shopper is told again.
  await page.reload();
  await expect(paymentStatus(page)).toContainText("Your session with the shop ended during this payment.");
  expect(traffic.exchanges).toHaveLength(2);

  // The shopper's own session comes back (the secret rolled back, the balancer
  // routes to a good instance): "Check again" asks the shop, which knows the attempt.
  await context.addCookies([original]);
  await paymentStatus(page).getByRole("button", { name: "Check again" }).click();
  await expect(confirmationHeading(page)).toBeVisible();
  expect(traffic.exchanges).toHaveLength(2); // asked, never paid again
  expect(await emulator.stats()).toMatchObject({ gated: 1, charges: 1 });
  await expectChargedOnce(shopper, { amountCents: 1800, key });
});
