import { randomUUID } from "node:crypto";
import { startApp, type AppProcess } from "../scripts/lib/app-process";
import type { Page } from "@playwright/test";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { expect, paymentIntentsOf, recordCheckoutTraffic, test, type WorkerApp } from "./fixtures";
import { E2E, STACK_APP_ENV } from "./settings";
import {
  addToCart,
  bankFrame,
  CARDS,
  confirmationHeading,
  goToCheckout,
  payButton,
  paymentStatus,
  typeCard,
} from "./shop";

/**
 * 3-D Secure (docs/contract.md, "3-D Secure"). A card typed into the Payment
 * Element authenticates in place: Stripe.js opens the bank's challenge over
 * the checkout (`handleNextAction`), here the emulator's page standing in for
 * the bank's as Stripe's test page does. The redirect and the return page
 * remain for methods that redirect: an API client paying with a token made
 * without Stripe.js is sent to the bank and back. The ledger is asserted
 * every time.
 */
async function payWith3DS(page: Page, baseUrl = "") {
  await page.goto(`${baseUrl}/`);
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page, CARDS.threeDSecure);
  await payButton(page).click();
  await expect(bankFrame(page).getByRole("heading", { name: "3D Secure test payment page" })).toBeVisible();
}

/**
 * A payment that redirects: the shopper's session pays with a ConfirmationToken
 * made on a server (no Stripe.js), so 3-D Secure is the bank's page and back to
 * the return page. The browser is then sent to the bank.
 */
async function redirectedTo3DS(page: Page, workerApp: WorkerApp, baseUrl = workerApp.url) {
  await page.goto(`${baseUrl}/`);
  expect((await page.request.post(`${baseUrl}/api/session`)).ok()).toBe(true); // this browser's session there
  const stripe = createStripeClient({ secretKey: workerApp.apiKey, apiBase: E2E.emulatorUrl });
  const token = await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_threeDSecure2Required" });
  const answer = await page.request.post(`${baseUrl}/api/checkout`, {
    headers: { "Idempotency-Key": randomUUID(), Origin: baseUrl },
    data: { items: [{ sku: "mug-enamel", quantity: 1 }], confirmationToken: token.id },
  });
  expect(answer.status()).toBe(202);
  const body = (await answer.json()) as { nextAction: { type: string; url: string } };
  expect(body.nextAction.type).toBe("redirect");
  await page.goto(body.nextAction.url);
  await expect(page.getByRole("heading", { name: "3D Secure test payment page" })).toBeVisible();
}

const returnHeading = (page: Page, name: string | RegExp) => page.getByRole("heading", { name, level: 1 });

test("A typed card that asks for 3-D Secure is authenticated in place, charged once, and confirmed", async ({
  page,
  shopper,
}) => {
  const traffic = recordCheckoutTraffic(page);
  await payWith3DS(page);
  expect(new URL(page.url()).pathname).toBe("/checkout"); // still on the shop: the bank's page is over it
  await expect(paymentStatus(page)).toContainText("Waiting for your bank");
  await bankFrame(page).getByRole("button", { name: "Complete authentication" }).click();

  await expect(confirmationHeading(page)).toBeVisible();
  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => i.status)).toEqual(["succeeded"]);
  const orders = await shopper.orders();
  expect(orders.map((o) => [o.status, o.paymentIntentId])).toEqual([["paid", intents[0]!.id]]);
  expect((await traffic.settled()).map((e) => e.status)).toEqual([202]);
  await expect(page).toHaveURL(`/orders/${orders[0]!.id}`);
  // The client secret the 202 carried for Stripe.js never reached the address bar.
  expect(page.url()).not.toContain("secret");
});

test("An authentication in place the shop is still settling when reported (409) is asked again and shown paid", async ({
  page,
  shopper,
}) => {
  // The shop settles the payment from Stripe's event too; a report arriving while it does
  // is answered 409 in_progress. Here the first report gets that answer, as the shop words it.
  const reports: number[] = [];
  await page.route("**/api/checkout/*/return", async (route) => {
    if (reports.length > 0) return route.continue();
    reports.push(409);
    await route.fulfill({
      status: 409,
      headers: { "Retry-After": "1" },
      contentType: "application/json",
      body: JSON.stringify({ error: "in_progress", message: "Still being processed.", retryAfterSeconds: 1 }),
    });
  });
  const answered = page.waitForResponse(
    (r) => new URL(r.url()).pathname.endsWith("/return") && r.request().method() === "POST" && r.status() === 201,
  );
  await payWith3DS(page);
  await bankFrame(page).getByRole("button", { name: "Complete authentication" }).click();

  await expect(confirmationHeading(page)).toBeVisible();
  expect(reports).toEqual([409]); // the 409 was given, and the page asked again
  await answered;
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["succeeded"]);
  expect((await shopper.orders()).map((o) => o.status)).toEqual(["paid"]);
});

test("A failed authentication in place shows the reason, charges nothing, and the next card is a new attempt", async ({
  page,
  shopper,
}) => {
  const traffic = recordCheckoutTraffic(page);
  await payWith3DS(page);
  await bankFrame(page).getByRole("button", { name: "Fail authentication" }).click();

  await expect(paymentStatus(page)).toContainText("Authentication failed");
  await expect(paymentStatus(page)).toContainText("Nothing was charged");
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["canceled"]);
  expect(await shopper.orders()).toEqual([]); // nothing charged: no order

  await typeCard(page, CARDS.visa);
  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();
  const keys = [...new Set((await traffic.settled()).map((e) => e.key))];
  expect(keys).toHaveLength(2);
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["succeeded", "canceled"]);
});

test("Pay pressed twice and the checkout reloaded while authentication is pending: one PaymentIntent, one key", async ({
  page,
  shopper,
}) => {
  const traffic = recordCheckoutTraffic(page);
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page, CARDS.threeDSecure);
  await payButton(page).dblclick();
  await expect(bankFrame(page).getByRole("heading", { name: "3D Secure test payment page" })).toBeVisible();

  // A reload while the bank waits: the page resumes the same attempt and the bank asks again.
  await page.reload();
  await expect(bankFrame(page).getByRole("button", { name: "Complete authentication" })).toBeVisible();
  const exchanges = (await traffic.settled()).filter((e) => e.status !== 409);
  expect(exchanges.length).toBeGreaterThanOrEqual(2);
  expect(new Set(exchanges.map((e) => e.key)).size).toBe(1);
  expect(new Set(exchanges.map((e) => e.body)).size).toBe(1);
  expect(new Set(exchanges.map((e) => e.status))).toEqual(new Set([202]));
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["requires_action"]);

  await bankFrame(page).getByRole("button", { name: "Complete authentication" }).click();
  await expect(confirmationHeading(page)).toBeVisible();
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["succeeded"]);
});

test("Pay pressed twice before the button disables: one bank challenge, charged once", async ({ page, shopper }) => {
  const traffic = recordCheckoutTraffic(page);
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page, CARDS.threeDSecure);
  // Two presses in one task (Enter held, a double tap), before React disables the button:
  // the second joins the first's token and key, and is answered as its replay.
  await page.locator("form.pay-form").evaluate((form: HTMLFormElement) => {
    form.requestSubmit();
    form.requestSubmit();
  });
  await expect
    .poll(async () =>
      (await traffic.settled())
        .filter((e) => e.status === 202)
        .map((e) => e.replayed)
        .sort(),
    )
    .toEqual([false, true]);
  const exchanges = (await traffic.settled()).filter((e) => e.status !== 409);
  expect(new Set(exchanges.map((e) => e.key)).size).toBe(1);
  expect(new Set(exchanges.map((e) => e.body)).size).toBe(1);
  await expect(page.locator('iframe[title="3D Secure authentication"]')).toHaveCount(1);

  await bankFrame(page).getByRole("button", { name: "Complete authentication" }).click();
  await expect(confirmationHeading(page)).toBeVisible();
  // No second challenge was left open behind the first.
  await expect(page.locator('iframe[title="3D Secure authentication"]')).toHaveCount(0);
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["succeeded"]);
  expect((await shopper.orders()).map((o) => o.status)).toEqual(["paid"]);
});

test("A payment that redirects to the bank comes back to the return page, paid once", async ({
  page,
  shopper,
  workerApp,
}) => {
  await redirectedTo3DS(page, workerApp);
  await page.getByRole("button", { name: "Complete authentication" }).click();

  await expect(page).toHaveURL(/\/checkout\/return\?key=/);
  await expect(returnHeading(page, "Paid — thank you")).toBeVisible();
  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => i.status)).toEqual(["succeeded"]);
  const orders = await shopper.orders();
  expect(orders.map((o) => [o.status, o.paymentIntentId])).toEqual([["paid", intents[0]!.id]]);
  await page.getByRole("link", { name: "View your order" }).click();
  await expect(page).toHaveURL(`/orders/${orders[0]!.id}`);
});

test("A shopper who opened the shop at 127.0.0.1 comes back from the bank to 127.0.0.1, signed in, and sees it paid", async ({
  page,
  emulator,
  workerApp,
}) => {
  // Not the host Next listens on (localhost): the return URL must be the one this browser used, where its cookie is.
  const shop = `http://127.0.0.1:${new URL(workerApp.url).port}`;
  await redirectedTo3DS(page, workerApp, shop);
  expect(new URL(page.url()).origin).not.toBe(shop); // on the provider's page now
  await page.getByRole("button", { name: "Complete authentication" }).click();

  await expect(page).toHaveURL(new RegExp(`^${shop.replaceAll(".", "\\.")}/checkout/return\\?key=`));
  await expect(returnHeading(page, "Paid — thank you")).toBeVisible();
  // Stripe sent the shopper back with the intent's client secret; the page keeps it out of the address bar and history.
  const back = await page.evaluate(() => ({ url: location.href }));
  expect(new URL(back.url).searchParams.has("payment_intent")).toBe(true);
  expect(back.url).not.toMatch(/client_secret|_secret_/);
  await page.reload();
  await expect(returnHeading(page, "Paid — thank you")).toBeVisible(); // still answers, without it
  const session = await page.request.post(`${shop}/api/session`); // this browser's session at 127.0.0.1
  expect(session.status()).toBe(200);
  const { customerId } = (await session.json()) as { customerId: string };
  expect((await paymentIntentsOf(emulator, customerId)).map((i) => i.status)).toEqual(["succeeded"]);
});

test("A failed authentication after a redirect shows the reason on the return page and charges nothing", async ({
  page,
  shopper,
  workerApp,
}) => {
  await redirectedTo3DS(page, workerApp);
  await page.getByRole("button", { name: "Fail authentication" }).click();
  await expect(returnHeading(page, "Authentication failed")).toBeVisible();
  await expect(page.getByRole("status")).toContainText("Nothing was charged");
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["canceled"]);
  expect(await shopper.orders()).toEqual([]); // nothing charged: no order
});

test("The return page reloaded and opened in a second tab records one order and one charge", async ({
  page,
  context,
  shopper,
  workerApp,
}) => {
  await redirectedTo3DS(page, workerApp);
  await page.getByRole("button", { name: "Complete authentication" }).click();
  await expect(returnHeading(page, "Paid — thank you")).toBeVisible();
  const returnUrl = page.url();

  await page.reload();
  await expect(returnHeading(page, "Paid — thank you")).toBeVisible();
  const second = await context.newPage();
  await second.goto(returnUrl);
  await expect(returnHeading(second, "Paid — thank you")).toBeVisible();

  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => i.status)).toEqual(["succeeded"]);
  expect((await shopper.orders()).map((o) => [o.status, o.paymentIntentId])).toEqual([["paid", intents[0]!.id]]);
});

test("A return URL carrying another customer's payment shows nothing of it", async ({
  page,
  browser,
  shopper,
  workerApp,
}) => {
  await redirectedTo3DS(page, workerApp);
  await page.getByRole("button", { name: "Complete authentication" }).click();
  await expect(returnHeading(page, "Paid — thank you")).toBeVisible();
  const returnUrl = page.url();

  const stranger = await browser.newContext();
  const strangerPage = await stranger.newPage();
  const reported = strangerPage.waitForResponse((r) => r.url().includes("/return") && r.request().method() === "POST");
  await strangerPage.goto(returnUrl);
  expect((await reported).status()).toBe(404);
  await expect(returnHeading(strangerPage, "We couldn’t find this payment")).toBeVisible();
  // A shopper who began in another browser is told not to pay again, not that the payment is someone else's.
  await expect(strangerPage.getByText(/please don’t pay again before you have checked your orders/)).toBeVisible();
  await expect(strangerPage.getByText(/pi_/)).toHaveCount(0);
  await stranger.close();
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["succeeded"]);
});

test(
  "An authentication nobody finishes is cancelled by the reconciler, stored, and replayed to the shopper",
  { tag: "@serial" },
  async ({ page, shopper, workerApp }) => {
    test.setTimeout(90_000);
    // A server of its own whose maintenance loop gives up on authentication after 3 s.
    const stackEnv = JSON.parse(process.env[STACK_APP_ENV] ?? "null") as Record<string, string> | null;
    expect(stackEnv, `${STACK_APP_ENV}, set by e2e/global-setup.ts`).not.toBeNull();
    const app: AppProcess = await startApp({
      port: Number(process.env.E2E_ABANDON_APP_PORT || E2E.appPort + 2),
      env: { ...workerApp.env, PAYMENT_ACTION_TIMEOUT_MS: "3000", MAINTENANCE_INTERVAL_MS: "500" },
    });
    try {
      await payWith3DS(page, app.url);
      await page.goto(`${app.url}/orders`); // the shopper walks away from the bank's page
      await expect
        .poll(async () => (await shopper.paymentIntents()).map((i) => i.status), { timeout: 30_000 })
        .toEqual(["canceled"]);

      await page.goto(`${app.url}/checkout`);
      await expect(paymentStatus(page)).toContainText("authentication was never completed");
      expect(await shopper.orders()).toEqual([]); // nothing charged: no order
    } finally {
      await app.stop();
    }
  },
);
