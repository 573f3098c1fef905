import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { TEST_OPS_TOKEN } from "@/tests/app-env";
import { deliver, stripeEvent } from "../tests/helpers/webhooks";
import { expectNoSeriousA11yViolations } from "./accessibility";
import { expect, test } from "./fixtures";
import { E2E, money } from "./settings";

// An operator refunds from /ops/orders/{id}: a double click, a lost answer,
// two tabs at once, a partial then the rest, and a refund the card network
// refuses later; each counted at the provider. On a desktop and at 360 px.

const MUG_CENTS = 1800;

/** A paid order of one mug, made over the shop's API with the page's session. */
async function paidOrder(page: Page, paymentMethod = "pm_card_visa"): Promise<{ id: string; paymentIntentId: string }> {
  expect((await page.request.post("/api/session")).status()).toBe(201);
  const answer = await page.request.post("/api/checkout", {
    headers: { "idempotency-key": randomUUID() },
    data: { items: [{ sku: "mug-enamel", quantity: 1 }], paymentMethod },
  });
  expect(answer.status()).toBe(201);
  const body = (await answer.json()) as { orderId: string; paymentIntentId: string };
  return { id: body.orderId, paymentIntentId: body.paymentIntentId };
}

async function signIn(page: Page) {
  await page.goto("/ops");
  await page.getByLabel("Your name").fill("Robin");
  await page.getByLabel("Operator token (OPS_TOKEN)").fill(TEST_OPS_TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Signed in as Robin.")).toBeVisible();
}

for (const width of [1280, 360]) {
  test.describe(`refunds on /ops at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("a double click refunds once; a partial then the rest leaves nothing", async ({ page, emulator }) => {
      const order = await paidOrder(page);
      await signIn(page);
      await page.goto(`/ops/orders/${order.id}`);
      await expect(page.getByTestId("remaining")).toHaveText(money(1800));
      await expectNoSeriousA11yViolations(page, "an order on /ops");
      await page.getByLabel(/^Amount/).fill("5.00");
      await page.getByLabel("Reason").fill("scratched");
      await page.getByRole("button", { name: "Refund" }).dblclick();
      await expect(page.getByTestId("refund-message")).toHaveText(
        `Refund of ${money(500)} made; ${money(1300)} remains.`,
      );
      await expect(page.getByTestId("remaining")).toHaveText(money(1300));
      expect((await emulator.refunds(order.paymentIntentId)).map((r) => r.amount)).toEqual([500]);

      await page.getByLabel(/^Amount/).fill("");
      await page.getByRole("button", { name: "Refund" }).click();
      await expect(page.getByTestId("refund-message")).toHaveText(
        `Refund of ${money(1300)} made; ${money(0)} remains.`,
      );
      await expect(page.getByTestId("remaining")).toHaveText(money(0));
      await expect(page.getByTestId("refund")).toHaveCount(2);
      await expect(page.getByRole("button", { name: "Refund" })).toHaveCount(0);
      expect((await emulator.refunds(order.paymentIntentId)).map((r) => r.amount).sort()).toEqual([1300, 500]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await expectNoSeriousA11yViolations(page, "a refunded order on /ops");

      // The shopper's own order page lists both refunds with amount and date.
      await page.goto(`/orders/${order.id}`);
      await expect(page.getByTestId("order-refund")).toHaveCount(2);
      await expect(page.getByTestId("order-refund").first()).toContainText(money(500));
      await expect(page.getByTestId("order-refund").last()).toContainText(money(1300));
    });

    test("an answer lost after Stripe refunded is asked again under its key", async ({ page, emulator }) => {
      const order = await paidOrder(page);
      await signIn(page);
      await page.goto(`/ops/orders/${order.id}`);
      let dropped = 0;
      await page.route(`**/api/ops/orders/${order.id}/refunds`, async (route) => {
        if (dropped > 0) return route.continue();
        dropped += 1;
        await route.fetch(); // the server refunds; its answer never reaches the page
        await route.abort("connectionreset");
      });
      await page.getByRole("button", { name: "Refund" }).click();
      await expect(page.getByTestId("refund-message")).toHaveText(
        `Refund of ${money(1800)} made; ${money(0)} remains.`,
      );
      expect(dropped).toBe(1);
      await expect(page.getByTestId("refund")).toHaveCount(1);
      expect((await emulator.refunds(order.paymentIntentId)).map((r) => r.amount)).toEqual([MUG_CENTS]);
    });

    test("two tabs refunding what remains: one refunds, the other is told none remains", async ({ page, emulator }) => {
      const order = await paidOrder(page);
      await signIn(page);
      const other = await page.context().newPage();
      await page.goto(`/ops/orders/${order.id}`);
      await other.goto(`/ops/orders/${order.id}`);
      await Promise.all([
        page.getByRole("button", { name: "Refund" }).click(),
        other.getByRole("button", { name: "Refund" }).click(),
      ]);
      await expect
        .poll(async () =>
          [
            await page.getByTestId("refund-message").textContent(),
            await other.getByTestId("refund-message").textContent(),
          ].sort(),
        )
        .toEqual(["Nothing remains to refund on this order.", `Refund of ${money(1800)} made; ${money(0)} remains.`]);
      expect((await emulator.refunds(order.paymentIntentId)).map((r) => r.amount)).toEqual([MUG_CENTS]);
      await other.close();
    });

    test("a refund the card network refuses later is shown as money owed", async ({ page, emulator, workerApp }) => {
      const order = await paidOrder(page, "pm_card_refundFail");
      await signIn(page);
      await page.goto(`/ops/orders/${order.id}`);
      await page.getByRole("button", { name: "Refund" }).click();
      await expect(page.getByTestId("refund-message")).toContainText(`Refund of ${money(1800)}`);
      const stripe = createStripeClient({ secretKey: workerApp.apiKey, apiBase: E2E.emulatorUrl });
      await expect
        .poll(async () => (await emulator.refunds(order.paymentIntentId)).map((r) => r.status))
        .toEqual(["failed"]);
      const [failed] = await emulator.refunds(order.paymentIntentId);
      const refund = await stripe.refunds.retrieve(failed!.id);
      expect((await deliver(workerApp.url, stripeEvent("refund.failed", refund))).status).toBe(200);
      await expect
        .poll(async () => {
          await page.reload();
          // Not there until the shop heard of the failure: read it only once it is.
          const owed = page.getByTestId("owed");
          return (await owed.count()) > 0 ? owed.textContent() : null;
        })
        .toContain(money(1800));
      await expect(page.getByTestId("remaining")).toHaveText(money(1800));
      await expect(page.getByTestId("refund")).toContainText("failed: money owed");
      await expectNoSeriousA11yViolations(page, "an order owed money on /ops");
    });
  });
}
