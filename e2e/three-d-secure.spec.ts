import { startApp, type AppProcess } from "../scripts/lib/app-process";
import type { Page } from "@playwright/test";
import { expect, paymentIntentsOf, recordCheckoutTraffic, test } from "./fixtures";
import { E2E, STACK_APP_ENV } from "./settings";
import { addToCart, goToCheckout, payButton, paymentStatus } from "./shop";

/**
 * 3-D Secure through the provider's redirect flow (docs/contract.md,
 * "3-D Secure"): the emulator's hosted page stands in for the bank's, exactly
 * as Stripe's test page does. The ledger is asserted every time.
 */
const THREE_D_SECURE = /Visa — 3-D Secure/;

async function payWith3DS(page: Page, baseUrl = "") {
  await page.goto(`${baseUrl}/`);
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page);
  await page.getByRole("radio", { name: THREE_D_SECURE }).check();
  await payButton(page).click();
  await expect(page.getByRole("heading", { name: "3D Secure test payment page" })).toBeVisible();
}

const returnHeading = (page: Page, name: string | RegExp) => page.getByRole("heading", { name, level: 1 });

test("A shopper who completes 3-D Secure is charged once and sees the payment confirmed", async ({ page, shopper }) => {
  const traffic = recordCheckoutTraffic(page);
  await payWith3DS(page);
  await page.getByRole("button", { name: "Complete authentication" }).click();

  await expect(page).toHaveURL(/\/checkout\/return\?key=/);
  await expect(returnHeading(page, "Paid — thank you")).toBeVisible();
  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => i.status)).toEqual(["succeeded"]);
  const orders = await shopper.orders();
  expect(orders.map((o) => [o.status, o.paymentIntentId])).toEqual([["paid", intents[0]!.id]]);
  expect((await traffic.settled()).map((e) => e.status)).toEqual([202]);

  await page.getByRole("link", { name: "View your order" }).click();
  await expect(page).toHaveURL(`/orders/${orders[0]!.id}`);
});

test("A shopper who opened the shop at 127.0.0.1 comes back from 3-D Secure to 127.0.0.1, signed in, and sees it paid", async ({
  page,
  emulator,
  workerApp,
}) => {
  // Not the host Next listens on (localhost): the return URL must be the one this browser used, where its cookie is.
  const shop = `http://127.0.0.1:${new URL(workerApp.url).port}`;
  const traffic = recordCheckoutTraffic(page);
  await payWith3DS(page, shop);
  expect(new URL(page.url()).origin).not.toBe(shop); // on the provider's page now
  expect((await traffic.settled()).map((e) => e.status)).toEqual([202]);
  await page.getByRole("button", { name: "Complete authentication" }).click();

  await expect(page).toHaveURL(new RegExp(`^${shop.replaceAll(".", "\\.")}/checkout/return\\?key=`));
  await expect(returnHeading(page, "Paid — thank you")).toBeVisible();
  const session = await page.request.post(`${shop}/api/session`); // this browser's session at 127.0.0.1
  expect(session.status()).toBe(200);
  const { customerId } = (await session.json()) as { customerId: string };
  expect((await paymentIntentsOf(emulator, customerId)).map((i) => i.status)).toEqual(["succeeded"]);
});

test("A failed authentication shows the reason, charges nothing, and the next press is a new attempt", async ({
  page,
  shopper,
}) => {
  const traffic = recordCheckoutTraffic(page);
  await payWith3DS(page);
  await page.getByRole("button", { name: "Fail authentication" }).click();

  await expect(returnHeading(page, "Authentication failed")).toBeVisible();
  await expect(page.getByRole("status")).toContainText("Nothing was charged");
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["requires_payment_method"]);
  expect((await shopper.orders()).map((o) => o.status)).toEqual(["failed"]);

  await page.getByRole("link", { name: "Back to checkout" }).click();
  await page.getByRole("radio", { name: /Visa — succeeds/ }).check();
  await payButton(page).click();
  await expect(page.getByRole("heading", { name: "Thank you — your order is paid" })).toBeVisible();
  const keys = [...new Set((await traffic.settled()).map((e) => e.key))];
  expect(keys).toHaveLength(2);
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["succeeded", "requires_payment_method"]);
});

test("Pay pressed twice and the checkout reloaded while authentication is pending: one PaymentIntent, one redirect URL", async ({
  page,
  shopper,
}) => {
  const traffic = recordCheckoutTraffic(page);
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page);
  await page.getByRole("radio", { name: THREE_D_SECURE }).check();
  await payButton(page).dblclick();
  await expect(page.getByRole("heading", { name: "3D Secure test payment page" })).toBeVisible();

  // Back to the shop without authenticating, then a reload: the attempt is the same one.
  await page.goto("/checkout");
  await expect(paymentStatus(page)).toContainText("Waiting for your bank");
  await page.reload();
  await expect(paymentStatus(page)).toContainText("Waiting for your bank");

  const exchanges = (await traffic.settled()).filter((e) => e.status !== 409);
  expect(exchanges.length).toBeGreaterThanOrEqual(2);
  expect(new Set(exchanges.map((e) => e.key)).size).toBe(1);
  expect(new Set(exchanges.map((e) => e.status))).toEqual(new Set([202]));
  // The first answer's body may go unread: the page was already on its way to the bank.
  const urls = exchanges.flatMap((e) => (e.json ? [(e.json.nextAction as { url?: string } | undefined)?.url] : []));
  expect(urls.length).toBeGreaterThanOrEqual(2);
  expect(new Set(urls).size).toBe(1);
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["requires_action"]);

  // Continuing from the checkout reaches the same authentication, and paying ends once.
  await paymentStatus(page).getByRole("link", { name: "Continue to your bank" }).click();
  await page.getByRole("button", { name: "Complete authentication" }).click();
  await expect(returnHeading(page, "Paid — thank you")).toBeVisible();
  expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["succeeded"]);
});

test("The return page reloaded and opened in a second tab records one order and one charge", async ({
  page,
  context,
  shopper,
}) => {
  await payWith3DS(page);
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

test("A return URL carrying another customer's payment shows nothing of it", async ({ page, browser, shopper }) => {
  await payWith3DS(page);
  await page.getByRole("button", { name: "Complete authentication" }).click();
  await expect(returnHeading(page, "Paid — thank you")).toBeVisible();
  const returnUrl = page.url();

  const stranger = await browser.newContext();
  const strangerPage = await stranger.newPage();
  const reported = strangerPage.waitForResponse((r) => r.url().includes("/return") && r.request().method() === "POST");
  await strangerPage.goto(returnUrl);
  expect((await reported).status()).toBe(404);
  await expect(returnHeading(strangerPage, "We couldn’t find this payment")).toBeVisible();
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
      expect((await shopper.orders()).map((o) => o.status)).toEqual(["failed"]);
    } finally {
      await app.stop();
    }
  },
);
