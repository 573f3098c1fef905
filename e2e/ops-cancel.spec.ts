import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { TEST_OPS_TOKEN } from "@/tests/app-env";
import { expectNoSeriousA11yViolations } from "./accessibility";
import { expect, test } from "./fixtures";

// An operator cancels a payment waiting for the shopper's 3-D Secure from
// /ops/orders/{id}: a double click cancels once at the provider, the page
// shows the outcome, and a paid order offers no Cancel. On a desktop and at 360 px.

/** An order of one mug whose card waits for 3-D Secure, made over the shop's API with the page's session. */
async function orderWaitingFor3ds(page: Page): Promise<string> {
  expect((await page.request.post("/api/session")).status()).toBe(201);
  const answer = await page.request.post("/api/checkout", {
    headers: { "idempotency-key": randomUUID() },
    data: { items: [{ sku: "mug-enamel", quantity: 1 }], paymentMethod: "pm_card_threeDSecure2Required" },
  });
  expect(answer.status()).toBe(202);
  return ((await answer.json()) as { orderId: string }).orderId;
}

async function signIn(page: Page) {
  await page.goto("/ops");
  await page.getByLabel("Your name").fill("Robin");
  await page.getByLabel("Operator token (OPS_TOKEN)").fill(TEST_OPS_TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Signed in as Robin.")).toBeVisible();
}

for (const width of [1280, 360]) {
  test.describe(`cancels on /ops at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test(`a double click cancels once at the provider, and the page shows it${width === 360 ? " @phone" : ""}`, async ({
      page,
      emulator,
    }) => {
      const orderId = await orderWaitingFor3ds(page);
      await signIn(page);
      await page.goto(`/ops/orders/${orderId}`);
      await expect(page.getByTestId("order-status")).toHaveText("pending: not paid yet");
      await expectNoSeriousA11yViolations(page, "an order waiting for the shopper on /ops");
      await page.getByLabel("Cancellation reason").selectOption("requested_by_customer");
      await page.getByRole("button", { name: "Cancel payment" }).dblclick();
      await expect(page.getByTestId("cancel-message")).toHaveText(
        "Payment cancelled at Stripe; the order failed and its checkout can be paid again.",
      );
      await expect(page.getByTestId("order-status")).toHaveText("failed: nothing charged");
      await expect(page.getByTestId("canceled")).toContainText("by an operator (requested_by_customer)");
      await expect(page.getByRole("button", { name: "Cancel payment" })).toHaveCount(0);
      expect(await emulator.stat("cancellations")).toBe(1);
      const intents = (await emulator.ledger()).filter((pi) => pi.metadata.orderId === orderId);
      expect(intents.map((pi) => [pi.status, pi.cancellation_reason])).toEqual([["canceled", "requested_by_customer"]]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await expectNoSeriousA11yViolations(page, "a cancelled order on /ops");
    });

    test("a paid order offers no Cancel", async ({ page }) => {
      expect((await page.request.post("/api/session")).status()).toBe(201);
      const paid = await page.request.post("/api/checkout", {
        headers: { "idempotency-key": randomUUID() },
        data: { items: [{ sku: "mug-enamel", quantity: 1 }], paymentMethod: "pm_card_visa" },
      });
      expect(paid.status()).toBe(201);
      await signIn(page);
      await page.goto(`/ops/orders/${((await paid.json()) as { orderId: string }).orderId}`);
      await expect(page.getByTestId("order-status")).toHaveText("paid");
      await expect(page.getByRole("button", { name: "Refund" })).toBeVisible();
      await expect(page.getByRole("button", { name: "Cancel payment" })).toHaveCount(0);
    });
  });
}
