import { randomUUID } from "node:crypto";
import type Stripe from "stripe";
import { passed, squash, waitUntil, withShop, type Journey, type JourneyResult } from "./journeys";
import { pressOnProviderPage } from "./provider-page";
import type { Provider } from "./provider";
import { describe, JourneyFailure, Shop, type Answer } from "./shop";

/**
 * The methods beyond cards (docs/decisions/0028, 0032): a SEPA debit with
 * Stripe's succeeding test IBAN (202 processing, then paid when Stripe
 * decides), and iDEAL in Chromium (to the bank's test page, Authorize, back to
 * the return page, paid). Both need the shop's `PAYMENT_METHOD_TYPES` to take
 * them and a token made by Stripe's test helper, so STRIPE_SECRET_KEY; both
 * take EUR only, so the shop prices in it (SHOP_CURRENCY=eur).
 */
const SEPA_IBAN = "DE89370400440532013000";

/** The test helper's `payment_method_data`, as stripe-node types it. */
type PaymentMethodData = NonNullable<
  NonNullable<Parameters<Stripe["testHelpers"]["confirmationTokens"]["create"]>[0]>["payment_method_data"]
>;

export const METHOD_JOURNEYS: Journey[] = [
  {
    name: "sepa",
    async run(ctx) {
      const provider = ctx.provider;
      if (!provider) return skippedWithoutKey("a SEPA debit");
      return withShop(ctx, async (shop) => {
        const refused = await notTaken(shop, "SEPA Direct Debit");
        if (refused) return refused;
        const token = await testToken(provider, {
          type: "sepa_debit",
          sepa_debit: { iban: SEPA_IBAN },
          billing_details: { name: "Jenny Rosen", email: "jenny@example.com" },
        });
        const body = { items: await shop.oneItem(), confirmationToken: token, paymentMethodType: "sepa_debit" };
        const answer = await shop.checkout(randomUUID(), body);
        const off = typeNotEnabled(answer, "sepa_debit");
        if (off) return off;
        if (answer.status !== 202 || answer.body.status !== "processing")
          throw new JourneyFailure(
            `the SEPA debit answered ${describe(answer)} ${answer.text}, expected 202 processing`,
          );
        const orderId = String(answer.body.orderId);
        const started = Date.now();
        const what = `GET /api/orders/${orderId} to show the debit paid, once Stripe decides it`;
        ctx.progress(`sepa: waiting up to ${ctx.refundWaitMs / 1000} s for ${what}`);
        const paid = await waitUntil(ctx.refundWaitMs, async () => {
          const order = await shop.order(orderId);
          if (order.status === "failed") throw new JourneyFailure(`the order of ${SEPA_IBAN} failed, expected paid`);
          return order.status === "paid" ? order : null;
        });
        if (!paid) throw new JourneyFailure(`waited ${ctx.refundWaitMs / 1000} s for ${what}: still processing`);
        const intent = await provider.theIntentOf(paid, "succeeded");
        return passed(
          `202 processing, paid ${((Date.now() - started) / 1000).toFixed(1)} s later (IBAN …${SEPA_IBAN.slice(-4)})`,
          `Stripe: one PaymentIntent, ${intent.id} ${intent.status} ${intent.amount} ${intent.currency}`,
        );
      });
    },
  },
  {
    name: "ideal",
    async run(ctx) {
      const provider = ctx.provider;
      if (!provider) return skippedWithoutKey("an iDEAL payment");
      const context = await ctx.browser.newContext({ baseURL: ctx.app.origin });
      try {
        const shop = new Shop(context.request);
        await shop.startSession();
        const refused = await notTaken(shop, "iDEAL");
        if (refused) return refused;
        const token = await testToken(provider, { type: "ideal" });
        const body = { items: await shop.oneItem(), confirmationToken: token, paymentMethodType: "ideal" };
        // The browser's Origin, so the return URL is on the address this browser (and its cookie) uses.
        const answer = await shop.checkout(randomUUID(), body, { Origin: ctx.app.origin });
        const off = typeNotEnabled(answer, "ideal");
        if (off) return off;
        const url = answer.body.nextAction?.url;
        if (answer.status !== 202 || answer.body.nextAction?.type !== "redirect" || typeof url !== "string")
          throw new JourneyFailure(`iDEAL answered ${describe(answer)} ${answer.text}, expected 202 with a redirect`);
        const page = await context.newPage();
        page.setDefaultTimeout(ctx.stepTimeoutMs);
        await page.goto(url);
        await pressOnProviderPage(page, "complete", ctx.app.origin, ctx.stepTimeoutMs);
        const shown = page.getByRole("heading", { name: "Paid — thank you" });
        try {
          await shown.waitFor();
        } catch {
          const heading = await page
            .getByRole("heading", { level: 1 })
            .textContent({ timeout: 2_000 })
            .catch(() => page.url());
          throw new JourneyFailure(
            `back from the bank the page says "${squash(heading)}", expected "Paid — thank you"`,
          );
        }
        const order = await shop.order(String(answer.body.orderId));
        if (order.status !== "paid") throw new JourneyFailure(`the order is ${order.status}, expected paid`);
        const intent = await provider.theIntentOf(order, "succeeded");
        return passed(
          `202 to the bank, Authorize, "Paid — thank you" on the return page, order paid`,
          `Stripe: one PaymentIntent, ${intent.id} ${intent.status} ${intent.amount} ${intent.currency}`,
        );
      } finally {
        await context.close();
      }
    },
  },
];

function skippedWithoutKey(what: string): JourneyResult {
  return {
    outcome: "skipped",
    detail: `set STRIPE_SECRET_KEY (the shop's test key) to make ${what}'s token with Stripe's test helper`,
  };
}

async function notTaken(shop: Shop, method: string): Promise<JourneyResult | null> {
  return eurOnly(await shop.currency(), method);
}

/**
 * SEPA Direct Debit and iDEAL take EUR only, at Stripe and at the emulator: a
 * shop pricing in another currency is skipped, saying what to set.
 */
export function eurOnly(currency: string, method: string): JourneyResult | null {
  if (currency === "eur") return null;
  return {
    outcome: "skipped",
    detail: `${method} takes EUR only; this shop prices in ${currency}: run it with SHOP_CURRENCY=eur`,
  };
}

/** The shop refuses a type it does not take (400 at `paymentMethodType`): skipped, naming the variable. */
export function typeNotEnabled(answer: Answer, type: string): JourneyResult | null {
  const issues: unknown = answer.body.issues;
  const atType =
    Array.isArray(issues) &&
    issues.some((issue: { path?: unknown }) => (issue.path as unknown[])?.[0] === "paymentMethodType");
  if (answer.status !== 400 || !atType) return null;
  return { outcome: "skipped", detail: `the shop does not take ${type}: add it to its PAYMENT_METHOD_TYPES` };
}

async function testToken(provider: Provider, data: PaymentMethodData): Promise<string> {
  try {
    return (await provider.stripe.testHelpers.confirmationTokens.create({ payment_method_data: data })).id;
  } catch (error) {
    throw new JourneyFailure(
      `Stripe refused a test ConfirmationToken for ${data.type}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
