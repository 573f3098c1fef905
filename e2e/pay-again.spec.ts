import type { Page } from "@playwright/test";
import { deliverTo } from "../tests/helpers/webhooks";
import { expectNoSeriousA11yViolations } from "./accessibility";
import { expect, test } from "./fixtures";
import { addToCart, bankFrame, cardFrame, CARDS, confirmationHeading, goToCheckout, payButton, typeCard } from "./shop";

/**
 * A SEPA debit that fails after it was on its way (docs/decisions/0028-methods-that-settle-later.md):
 * its checkout reopens on the server, the order page says so and offers
 * "Pay again", which pays that same checkout. However many attempts it took,
 * the checkout is one order, and Stripe's ledger holds one successful payment.
 */
/** Stripe's SEPA test IBAN whose debit fails a little later (packages/stripe-emulator/src/sepa.ts). */
const FAILS_LATER_IBAN = "DE62 3704 0044 0532 0130 01";

const heading = (page: Page) => page.getByRole("heading", { level: 1 });
const heldCheckout = (page: Page) =>
  page.evaluate(() => {
    const held = JSON.parse(window.localStorage.getItem("never-twice:cart-checkout") ?? "null") as {
      id: string;
    } | null;
    return held?.id ?? null;
  });

async function payByDebit(page: Page): Promise<void> {
  const frame = cardFrame(page);
  await frame.getByRole("tab", { name: "SEPA Debit" }).click();
  await frame.getByLabel("Full name").fill("Jenny Rosen");
  await frame.getByLabel("Email").fill("jenny@example.com");
  await frame.getByLabel("IBAN").fill(FAILS_LATER_IBAN);
  await payButton(page).click();
  await expect(heading(page)).toHaveText("Your payment is on its way");
}

/** A mug in a fresh cart, paid by the debit that fails later: its checkout and the order page it lands on. */
async function mugPaidByDebit(page: Page): Promise<{ checkoutId: string | null; debitOrder: string }> {
  await page.goto("/");
  await addToCart(page, "Enamel Mug");
  await goToCheckout(page, null);
  await expect.poll(() => heldCheckout(page)).not.toBeNull();
  const checkoutId = await heldCheckout(page);
  await payByDebit(page);
  return { checkoutId, debitOrder: page.url() };
}

test.beforeEach(async ({ emulator, workerApp }) => {
  await deliverTo(emulator, workerApp.url); // the debit's failure reaches the shop as Stripe's event
});

test(
  "A debit that fails later: Pay again pays the same checkout by card, one order, one payment",
  { tag: "@phone" },
  async ({ page, shopper, emulator }) => {
    const { checkoutId, debitOrder } = await mugPaidByDebit(page);
    await expect(page.getByRole("button", { name: "Pay again" })).toHaveCount(0);
    expect((await shopper.paymentIntents()).map((i) => i.status)).toEqual(["processing"]);

    expect((await emulator.advanceClock(60)).settled).toBe(1);
    await expect(heading(page)).toHaveText("Your payment did not go through");
    await expect(page.getByText(/Your bank refused the direct debit after it was on its way/)).toBeVisible();
    await expect(page.getByText("Did not go through", { exact: true })).toBeVisible(); // not "Declined" at the press
    await expect(page.getByText(/Your cart already holds/)).toHaveCount(0); // the debit emptied it
    await expectNoSeriousA11yViolations(page, "the order page of a debit that failed later");
    const total = await page.locator(".order-lines tfoot td").innerText();

    await page.getByRole("button", { name: "Pay again" }).click();
    await expect(page.getByRole("heading", { name: "Checkout", level: 1 })).toBeVisible();
    const cart = page.getByRole("region", { name: "Your cart" });
    await expect(cart).toContainText("Enamel Mug");
    await expect(payButton(page)).toContainText(total);
    expect(await heldCheckout(page)).toBe(checkoutId); // the next attempt belongs to the reopened checkout
    await typeCard(page, CARDS.visa);
    await payButton(page).click();
    await expect(confirmationHeading(page)).toBeVisible();

    const attempts = page.getByRole("list", { name: "Payment attempts" }).getByRole("listitem");
    await expect(attempts).toHaveCount(2);
    await expect(attempts.nth(0)).toContainText("Declined");
    await expect(attempts.nth(1)).toContainText("Paid");
    const orders = await shopper.orders();
    expect(orders.map((o) => [o.checkoutId, o.status])).toEqual([[checkoutId, "paid"]]);
    expect(orders[0]!.attempts.map((a) => a.status)).toEqual(["failed", "paid"]);
    const intents = await shopper.paymentIntents();
    expect(intents).toHaveLength(2);
    expect(intents.filter((i) => i.status === "succeeded").map((i) => i.id)).toEqual([orders[0]!.paymentIntentId]);

    // The debit's own page now leads to the order as it stands, and offers no second payment.
    await page.goto(debitOrder);
    await expect(heading(page)).toHaveText("Your payment did not go through");
    await expect(page.getByRole("button", { name: "Pay again" })).toHaveCount(0);
    await page.getByRole("link", { name: "See the order as it stands" }).click();
    await expect(confirmationHeading(page)).toBeVisible();
  },
);

test("Pay again beside a cart started since: the new cart's items stay, and join the reopened checkout", async ({
  page,
  shopper,
  emulator,
}) => {
  const { checkoutId, debitOrder } = await mugPaidByDebit(page);

  // While the debit is on its way the shopper starts another cart, and its own checkout.
  await page.goto("/");
  await addToCart(page, "Classic Tee");
  await goToCheckout(page, null);
  await expect
    .poll(async () => {
      const held = await heldCheckout(page);
      return held !== null && held !== checkoutId;
    })
    .toBe(true);

  expect((await emulator.advanceClock(60)).settled).toBe(1);
  await page.goto(debitOrder);
  await expect(heading(page)).toHaveText("Your payment did not go through");
  await expect(page.getByText("Your cart already holds 1 item: they stay in it")).toBeVisible();
  await page.getByRole("button", { name: "Pay again" }).click();

  await expect(page.getByRole("heading", { name: "Checkout", level: 1 })).toBeVisible();
  const cart = page.getByRole("region", { name: "Your cart" });
  await expect(cart).toContainText("Classic Tee");
  await expect(cart).toContainText("Enamel Mug");
  await expect.poll(() => heldCheckout(page)).toBe(checkoutId);
  await typeCard(page, CARDS.visa);
  await payButton(page).click();
  await expect(confirmationHeading(page)).toBeVisible();

  // One order for the checkout, now of both items, its two attempts inside it; one payment at Stripe.
  const orders = await shopper.orders();
  expect(orders.map((o) => [o.checkoutId, o.status])).toEqual([[checkoutId, "paid"]]);
  expect(orders[0]!.lines.map((l) => l.name).sort()).toEqual(["Classic Tee", "Enamel Mug"]);
  expect(orders[0]!.amountCents).toBe(orders[0]!.lines.reduce((sum, l) => sum + l.unitPriceCents * l.quantity, 0));
  expect(orders[0]!.attempts.map((a) => a.status)).toEqual(["failed", "paid"]);
  const intents = await shopper.paymentIntents();
  expect(intents.filter((i) => i.status === "succeeded").map((i) => i.amount)).toEqual([orders[0]!.amountCents]);
  // Paid: both items left the cart.
  await page.goto("/checkout");
  await expect(page.getByText("Your cart is empty.")).toBeVisible();
});

test("Pay again while the cart's own checkout waits for the bank: nothing taken over, the shopper told why", async ({
  page,
  shopper,
  emulator,
}) => {
  const { checkoutId: failedCheckout, debitOrder } = await mugPaidByDebit(page);
  expect((await emulator.advanceClock(60)).settled).toBe(1);
  await expect(heading(page)).toHaveText("Your payment did not go through");

  // Another cart, paid in a second tab by a card whose bank challenge stays open: its checkout is live.
  const other = await page.context().newPage();
  await other.goto("/");
  await addToCart(other, "Classic Tee");
  await goToCheckout(other, CARDS.threeDSecure);
  await payButton(other).click();
  await expect(bankFrame(other).getByRole("heading", { name: "3D Secure test payment page" })).toBeVisible();
  const paying = await heldCheckout(other);
  expect(paying).not.toBe(failedCheckout);
  expect((await shopper.paymentIntents()).map((i) => i.status).sort()).toEqual([
    "requires_action",
    "requires_payment_method",
  ]);

  await page.goto(debitOrder);
  await page.getByRole("button", { name: "Pay again" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Another payment of your cart is under way" })).toBeVisible();
  await expect(page).toHaveURL(debitOrder);
  expect(await heldCheckout(page)).toBe(paying); // the paying checkout stays the cart's

  // The challenge completed, that checkout is paid; Pay again then takes the reopened checkout.
  await bankFrame(other).getByRole("button", { name: "Complete authentication" }).click();
  await expect(confirmationHeading(other)).toBeVisible();
  await page.getByRole("button", { name: "Pay again" }).click();
  await expect(page.getByRole("heading", { name: "Checkout", level: 1 })).toBeVisible();
  expect(await heldCheckout(page)).toBe(failedCheckout);
  await expect(page.getByRole("region", { name: "Your cart" })).toContainText("Enamel Mug");
});
