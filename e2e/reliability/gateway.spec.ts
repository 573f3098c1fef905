import { expect, recordCheckoutTraffic, test, type CheckoutExchange } from "../fixtures";
import { addToCart, confirmationHeading, goToCheckout, payButton, paymentStatus, watchPresses } from "../shop";
import { expectChargedOnce, onlyKey, orderIdOf, outcomes } from "./evidence";

test("A shopper who clicks again and reloads while the gateway holds the payment is charged once", async ({
  page,
  shopper,
  emulator,
}) => {
  test.setTimeout(120_000);
  const traffic = recordCheckoutTraffic(page);
  await page.goto("/");
  await addToCart(page, "Dot-grid Notebook", 2);
  await goToCheckout(page);
  const presses = await watchPresses(page);
  // The gateway holds the payment (the gate) until the shopper has clicked again and reloaded.
  await emulator.faults({ gate: true });

  await payButton(page).click();
  await expect(paymentStatus(page)).toContainText(/Still processing — retry \d+/, { timeout: 20_000 });
  // The impatient second click lands on the disabled button: nothing is submitted.
  await payButton(page).click({ force: true });
  expect(await presses()).toEqual({ pointerDowns: 2, submits: 1 });
  expect((await emulator.stats()).delayed).toBe(1);

  // The page before the reload keeps retrying until it unloads: a retry it sent
  // just before may be cut off, or answered with no body to read. The reloaded
  // page's requests are the ones sent after the reload's navigation.
  const beforeReload = traffic.navigations();
  const fromReloadedPage = (e: CheckoutExchange) => e.document > beforeReload;
  // On a phone: the reloaded page leads with the payment in progress, not an empty card form.
  await page.setViewportSize({ width: 360, height: 740 });
  await page.reload();
  // The reloaded page resumes the open attempt by itself, with the same key.
  await expect(paymentStatus(page)).toContainText(/Paying…|Still processing — retry \d+/);
  await expect(paymentStatus(page)).toBeInViewport();
  await expect(payButton(page)).toHaveCount(0);
  await expect.poll(() => traffic.exchanges.find(fromReloadedPage)?.status, { timeout: 30_000 }).toBe(409);
  // Its body is read while the page is still there: the confirmation's navigation would discard it.
  await traffic.settled();
  await emulator.faults({ gate: false });
  await expect(confirmationHeading(page)).toBeVisible({ timeout: 60_000 });

  const exchanges = await traffic.settled();
  const key = onlyKey(exchanges);
  // The reloaded page's first request was answered as a duplicate: the attempt was still being charged.
  const resumed = exchanges.find(fromReloadedPage)!;
  expect(resumed.status).toBe(409);
  expect(resumed.json).toMatchObject({ error: "in_progress", retryAfterSeconds: 1 });
  expect(resumed.retryAfter).toBe("1");
  expect(outcomes(exchanges).at(-1)).toBe("201 replayed");
  // The gateway was slow: the payment sat at the gate, and the first request gave up waiting.
  expect(await emulator.stats()).toMatchObject({ gated: 1, charges: 1 });
  expect(exchanges[0]!.failure).toBe("net::ERR_ABORTED");
  await expectChargedOnce(shopper, { amountCents: 2 * 1200, key });
});

test("Transient provider failures are retried to one charge without the shopper doing anything", async ({
  page,
  shopper,
  emulator,
}) => {
  const traffic = recordCheckoutTraffic(page);
  await page.goto("/");
  await addToCart(page, "Classic Tee");
  await goToCheckout(page);
  // The app's Stripe client retries twice by itself; a third 503 reaches the shop's answer.
  await emulator.faults({ failNext: { status: 503, times: 3 } });

  await payButton(page).click();
  await expect(paymentStatus(page)).toContainText("Still processing — retry 1");
  await expect(confirmationHeading(page)).toBeVisible();

  // Three 503s at the provider's edge: the SDK's own two retries, then the shop's answer.
  expect(await emulator.stats()).toMatchObject({ failedInjected: 3, charges: 1 });
  const exchanges = await traffic.settled();
  expect(outcomes(exchanges)).toEqual(["503", "201"]);
  expect(exchanges[0]!.json).toMatchObject({ error: "payment_unavailable" });
  expect(exchanges[0]!.retryAfter).toBe("2");
  const key = onlyKey(exchanges);
  await expectChargedOnce(shopper, { amountCents: 2500, key, orderId: orderIdOf(exchanges[1]) });
});
