import type { Page } from "@playwright/test";
import { startApp } from "../scripts/lib/app-process";
import { freePort } from "../tests/app-env";
import { deliverTo } from "../tests/helpers/webhooks";
import { expect, test } from "./fixtures";
import { addToCart, CARDS, cardFrame, confirmationHeading, goToCheckout, payButton, typeCard } from "./shop";

/**
 * iDEAL and Bancontact (docs/decisions/0032-bank-redirects-return-anywhere-or-never.md):
 * the shop's one create-and-confirm answers a redirect, the browser goes to the
 * bank (the emulator's page, like Stripe's test page) and comes back to the
 * return page — or comes back in another tab, or never. Whichever way, one
 * payment and one order, counted in the emulator's ledger.
 */
const bankHeading = (page: Page, method: "iDEAL" | "Bancontact" = "iDEAL") =>
  page.getByRole("heading", { name: `${method} test payment page`, level: 1 });
const returnHeading = (page: Page, name: string | RegExp) => page.getByRole("heading", { name, level: 1 });

/** From the catalogue to the bank's page, paying with the method's tab in the Payment Element (on `shop`, if given). */
async function toTheBank(page: Page, method: "iDEAL" | "Bancontact" = "iDEAL", shop?: string) {
  await page.goto(shop ? new URL("/", shop).toString() : "/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page, null);
  await cardFrame(page).getByRole("tab", { name: method }).click();
  await expect(cardFrame(page).getByText(`your bank asks you to approve the payment (${method})`)).toBeVisible();
  await payButton(page).click();
  await expect(bankHeading(page, method)).toBeVisible();
}

/**
 * The shopper approves at the bank somewhere else (the bank's app): the bank's
 * answer is given, and the return URL it would send this page to is returned unopened.
 */
async function authorizeElsewhere(page: Page): Promise<string> {
  const form = page.locator("form", { has: page.getByRole("button", { name: "Authorize test payment" }) });
  const action = new URL((await form.getAttribute("action")) ?? "", page.url()).toString();
  const secret = (await form.locator('input[name="client_secret"]').getAttribute("value")) ?? "";
  const answer = await page.request.post(action, {
    form: { client_secret: secret, action: "authorize" },
    maxRedirects: 0,
  });
  expect(answer.status()).toBe(303);
  return answer.headers()["location"] ?? "";
}

async function ordersPage(page: Page) {
  await page.goto("/orders");
  return page.getByRole("list", { name: "Orders" }).getByRole("listitem");
}

for (const method of ["iDEAL", "Bancontact"] as const) {
  test(`${method}: to the bank and back, paid once`, async ({ page, shopper, emulator }) => {
    await toTheBank(page, method);
    const [waiting] = await shopper.paymentIntents();
    const type = method === "iDEAL" ? "ideal" : "bancontact";
    expect(waiting).toMatchObject({ status: "requires_action", next_action: { type: "redirect_to_url" } });
    expect(waiting!.payment_method_types).toContain(type);

    const confirmsBefore = await emulator.stat("confirms");
    await page.getByRole("button", { name: "Authorize test payment" }).click();
    await expect(page).toHaveURL(/\/checkout\/return\?key=/);
    await expect(returnHeading(page, "Paid — thank you")).toBeVisible();
    // The bank left the shop's manual intent waiting for it: the return confirmed it, once.
    expect((await emulator.stat("confirms")) - confirmsBefore).toBe(1);
    expect(page.url()).not.toContain("client_secret");

    const intents = await shopper.paymentIntents();
    expect(intents.map((i) => i.status)).toEqual(["succeeded"]);
    const orders = await shopper.orders();
    expect(orders.map((o) => [o.status, o.paymentIntentId])).toEqual([["paid", intents[0]!.id]]);
  });
}

test("iDEAL: the return lands in another tab, paid once, both tabs show the order", async ({
  page,
  context,
  shopper,
}) => {
  await toTheBank(page);
  const returnUrl = await authorizeElsewhere(page);
  expect(new URL(returnUrl).searchParams.get("redirect_status")).toBe("succeeded");

  const second = await context.newPage();
  await second.goto(returnUrl);
  await expect(returnHeading(second, "Paid — thank you")).toBeVisible();
  await second.getByRole("link", { name: "View your order" }).click();
  await expect(confirmationHeading(second)).toBeVisible();

  // The first tab, still on the bank's page, goes back to the checkout it left: the same payment, paid.
  await page.goBack();
  await expect(confirmationHeading(page)).toBeVisible();
  const orders = await ordersPage(page);
  await expect(orders).toHaveCount(1);
  await expect(orders.first()).toContainText("Paid");

  const intents = await shopper.paymentIntents();
  expect(intents.map((i) => i.status)).toEqual(["succeeded"]);
  expect((await shopper.orders()).map((o) => [o.status, o.paymentIntentId])).toEqual([["paid", intents[0]!.id]]);
});

test(
  "iDEAL: the shopper never comes back from the bank; the reconciler confirms the approved payment, paid once",
  { tag: "@serial" },
  async ({ page, context, shopper, emulator, workerApp }) => {
    test.setTimeout(90_000);
    // The bank's approval leaves the shop's manual intent in requires_confirmation, and Stripe sends no event
    // for that: the reconciler's first look at the parked attempt confirms it. Paid on a server of its own
    // that parks it for a look after 2 s (PAYMENT_ACTION_TIMEOUT_MS / 16) and runs the maintenance loop;
    // @serial, as that loop reconciles every attempt of the database.
    const app = await startApp({
      port: await freePort(),
      env: { ...workerApp.env, PAYMENT_ACTION_TIMEOUT_MS: "32000", MAINTENANCE_INTERVAL_MS: "500" },
    });
    try {
      await deliverTo(emulator, app.url);
      await toTheBank(page, "iDEAL", app.url);
      const confirmsBefore = await emulator.stat("confirms");
      await authorizeElsewhere(page);
      await page.goto("about:blank"); // the bank's page closed: the return URL is never opened

      await expect
        .poll(async () => (await shopper.orders()).map((o) => o.status), { timeout: 30_000 })
        .toEqual(["paid"]);
      const history = await context.newPage();
      const orders = await ordersPage(history);
      await expect(orders).toHaveCount(1);
      await expect(orders.first()).toContainText("Paid");
      const intents = await shopper.paymentIntents();
      expect(intents.map((i) => i.status)).toEqual(["succeeded"]);
      expect((await emulator.stat("confirms")) - confirmsBefore).toBe(1);
    } finally {
      await app.stop();
    }
  },
);

test("iDEAL failed at the bank: no order until the checkout is paid again by card, then one", async ({
  page,
  context,
  shopper,
}) => {
  await toTheBank(page);
  await page.getByRole("button", { name: "Fail test payment" }).click();
  await expect(returnHeading(page, "Authentication failed")).toBeVisible();
  await expect(page.getByText("Nothing was charged", { exact: false })).toBeVisible();
  // Nothing was bought: the shopper's history has no order for it.
  const history = await context.newPage();
  await history.goto("/orders");
  await expect(history.getByText("No orders yet")).toBeVisible();
  expect(await shopper.orders()).toEqual([]);
  await history.close();

  await page.getByRole("link", { name: "Back to checkout" }).click();
  await expect(page.getByRole("heading", { name: "Checkout", level: 1 })).toBeVisible();
  await typeCard(page, CARDS.visa);
  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();

  const intents = await shopper.paymentIntents();
  // The shop cancels the intent the bank failed, as it cancels a failed authentication.
  expect(intents.map((i) => i.status).sort()).toEqual(["canceled", "succeeded"]);
  const orders = await shopper.orders();
  expect(orders).toHaveLength(1);
  expect(orders[0]!.status).toBe("paid");
  expect(orders[0]!.attempts.map((a) => a.status)).toEqual(["failed", "paid"]);
  expect(new Set(orders[0]!.attempts.map((a) => a.key)).size).toBe(2);
});
