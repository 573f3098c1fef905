import { expect, recordCheckoutTraffic, test } from "../fixtures";
import { addToCart, confirmationHeading, goToCheckout, payButton, paymentStatus } from "../shop";
import { expectChargedOnce, onlyKey, orderIdOf, outcomes } from "./evidence";

test("A response lost after the charge is recovered by the retry: same key, same order, one charge", async ({
  page,
  shopper,
  emulator,
}) => {
  const traffic = recordCheckoutTraffic(page);
  // The first POST reaches the server, which charges the card and answers;
  // the browser's connection is then reset, so the page never sees that answer.
  const cut: Array<{ status: number; replayed: boolean; orderId: unknown; paymentIntentId: unknown }> = [];
  await page.route("**/api/checkout", async (route) => {
    if (route.request().method() !== "POST" || cut.length > 0) return route.fallback();
    const response = await route.fetch();
    const body = (await response.json()) as Record<string, unknown>;
    cut.push({
      status: response.status(),
      replayed: response.headers()["idempotent-replayed"] === "true",
      orderId: body.orderId,
      paymentIntentId: body.paymentIntentId,
    });
    await route.abort("connectionreset");
  });
  await page.goto("/");
  await addToCart(page, "Canvas Cap");
  await goToCheckout(page);

  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();

  expect(cut).toHaveLength(1);
  expect(cut[0]).toMatchObject({ status: 201, replayed: false });
  const exchanges = await traffic.settled();
  // The page's first request was cut after the server answered it; its retry got the stored answer.
  expect(outcomes(exchanges)).toEqual(["failed: net::ERR_CONNECTION_RESET", "201 replayed"]);
  const key = onlyKey(exchanges);
  expect(orderIdOf(exchanges[1])).toBe(cut[0]!.orderId);
  await expect(page).toHaveURL(`/orders/${cut[0]!.orderId}`);
  const intent = await expectChargedOnce(shopper, { amountCents: 2200, key, orderId: cut[0]!.orderId as string });
  expect(intent.id).toBe(cut[0]!.paymentIntentId);
  expect(await emulator.stats()).toMatchObject({ charges: 1 });
});

test("A provider response dropped after the charge is recovered on the server: one charge, the shopper sees paid", async ({
  page,
  shopper,
  emulator,
}) => {
  const traffic = recordCheckoutTraffic(page);
  await page.goto("/");
  await addToCart(page, "Market Tote");
  await goToCheckout(page);
  await emulator.faults({ dropAfterCharge: 1 });

  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();

  // The charge went through and its connection was destroyed; the app's Stripe
  // client asked again with the same Stripe idempotency key and got the stored
  // result (stripe-node retries a reset connection by itself).
  expect(await emulator.stats()).toMatchObject({ dropped: 1, charges: 1, replayed: 1 });
  // So the browser never noticed: one request, answered first time.
  const exchanges = await traffic.settled();
  expect(outcomes(exchanges)).toEqual(["201"]);
  const key = onlyKey(exchanges);
  await expectChargedOnce(shopper, { amountCents: 1600, key, orderId: orderIdOf(exchanges[0]) });
});

test(
  "Going offline mid-payment and coming back online completes the payment once",
  { tag: "@phone" },
  async ({ page, context, shopper, emulator }) => {
    const traffic = recordCheckoutTraffic(page);
    await page.goto("/");
    await addToCart(page, "Merino Socks");
    await goToCheckout(page);
    // The payment is held at the gateway (the gate): the request the page has out outlives its 5 s timeout.
    await emulator.faults({ gate: true });

    await payButton(page).click();
    await expect.poll(async () => (await emulator.stats()).delayed).toBe(1);
    await context.setOffline(true);
    // The page knows it is offline, and the network really is gone for it.
    expect(await page.evaluate(() => navigator.onLine)).toBe(false);
    expect(
      await page.evaluate(() =>
        fetch("/api/health").then(
          () => "reached the shop",
          (err: unknown) => String(err),
        ),
      ),
    ).toMatch(/Failed to fetch/);
    await expect(paymentStatus(page)).toContainText(/Still processing — retry \d+/, { timeout: 20_000 });
    await emulator.faults({ gate: false });
    // The shop finished the charge while the browser could not hear about it.
    await expect
      .poll(async () => (await shopper.paymentIntents()).map((i) => i.status), { timeout: 20_000 })
      .toEqual(["succeeded"]);

    const onlineAt = Date.now(); // taken first: whatever was sent before it was sent offline
    await context.setOffline(false);
    await expect(confirmationHeading(page)).toBeVisible();

    const exchanges = await traffic.settled();
    const key = onlyKey(exchanges);
    // The request out when the network went never got its answer, nor did anything sent while offline…
    expect(exchanges[0]!.failure).toMatch(/net::ERR_(ABORTED|INTERNET_DISCONNECTED)/);
    expect(exchanges.filter((e) => e.sentAt < onlineAt && e.status !== null)).toEqual([]);
    // …the first retry once back online got the stored result.
    const answered = exchanges.filter((e) => e.status !== null);
    expect(outcomes(answered)).toEqual(["201 replayed"]);
    expect(await emulator.stats()).toMatchObject({ charges: 1, gated: 1 });
    await expectChargedOnce(shopper, { amountCents: 1400, key, orderId: orderIdOf(answered[0]) });
  },
);
