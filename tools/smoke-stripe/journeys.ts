import { randomUUID } from "node:crypto";
import { request, type Browser, type Page } from "@playwright/test";
import { pressOnProviderPage, type Authentication } from "./provider-page";
import type { Provider } from "./provider";
import { describe, JourneyFailure, Shop, type Answer, type Order } from "./shop";

export interface SmokeContext {
  app: URL;
  browser: Browser;
  /** null without STRIPE_SECRET_KEY: only what the shop says is checked. */
  provider: Provider | null;
  refundWaitMs: number;
  /** How long a page or the provider may take for one step of a browser journey. */
  stepTimeoutMs: number;
  /** A note while a journey waits, so a long wait says what it is waiting for. */
  progress: (line: string) => void;
}

export type JourneyResult = { outcome: "passed" | "skipped"; detail: string };

export interface Journey {
  name: string;
  run(ctx: SmokeContext): Promise<JourneyResult>;
}

/**
 * Stripe's documented test payment methods and cards, each known to the
 * emulator too. `pm_card_chargeDeclined` is the generic decline
 * (4000 0000 0000 0002); 4000 0027 6000 3184 always asks for 3-D Secure.
 */
const VISA = "pm_card_visa";
const DECLINED = "pm_card_chargeDeclined";
const THREE_D_SECURE_CARD = "4000 0027 6000 3184";

const NOT_CHECKED = "Stripe not checked: STRIPE_SECRET_KEY unset";

export const JOURNEYS: Journey[] = [
  {
    name: "pay",
    async run(ctx) {
      return withShop(ctx, async (shop) => {
        // With the account's key at hand, a card as Stripe.js would send it, made where no browser is:
        // a ConfirmationToken from the test helper. Without it, the test payment method.
        const token = ctx.provider ? await confirmationToken(ctx.provider, VISA) : null;
        const { answer } = token ? await payWithToken(shop, token) : await pay(shop, VISA);
        const order = await paidOrder(shop, answer);
        const paidWith = token ? `a ConfirmationToken for ${VISA}` : VISA;
        return passed(`201 paid ${money(order)} with ${paidWith}`, await intent(ctx, order, "succeeded"));
      });
    },
  },
  {
    name: "decline",
    async run(ctx) {
      return withShop(ctx, async (shop) => {
        const { answer } = await pay(shop, DECLINED);
        if (answer.status !== 402 || answer.body.error !== "card_declined")
          throw new JourneyFailure(`${DECLINED} answered ${describe(answer)}, expected 402 card_declined`);
        const order = await shop.order(String(answer.body.orderId));
        if (order.status !== "failed")
          throw new JourneyFailure(`the declined order is ${order.status}, expected failed`);
        return passed(
          `402 card_declined (${answer.body.declineCode ?? "no decline code"})`,
          await intent(ctx, order, "requires_payment_method"),
        );
      });
    },
  },
  threeDSecure("3ds-complete", "complete"),
  threeDSecure("3ds-fail", "fail"),
  {
    name: "replay",
    async run(ctx) {
      return withShop(ctx, async (shop) => {
        const { key, body, answer } = await pay(shop, VISA);
        const order = await paidOrder(shop, answer);
        const again = await shop.checkout(key, body);
        if (again.status !== answer.status || again.text !== answer.text)
          throw new JourneyFailure(
            `the same key again answered ${describe(again)} ${again.text}, not the first answer`,
          );
        if (!again.replayed) throw new JourneyFailure("the same key again came without Idempotent-Replayed: true");
        const orders = await shop.orders();
        if (orders.length !== 1) throw new JourneyFailure(`one key made ${orders.length} orders, expected 1`);
        return passed(`the same key twice: one answer, replayed, one order`, await intent(ctx, order, "succeeded"));
      });
    },
  },
  {
    name: "refund",
    async run(ctx) {
      if (!ctx.provider)
        return {
          outcome: "skipped",
          detail: "set STRIPE_SECRET_KEY (the shop's test key) to refund a payment at Stripe as an operator would",
        };
      const provider = ctx.provider;
      return withShop(ctx, async (shop) => {
        const { answer } = await pay(shop, VISA);
        const order = await paidOrder(shop, answer);
        const paid = await provider.theIntentOf(order, "succeeded");
        // As a Dashboard refund would: made at Stripe, not through the shop.
        const refund = await provider.stripe.refunds.create({ payment_intent: paid.id });
        const started = Date.now();
        const what = `GET /api/orders/${order.id} to show ${refund.id} (refundedAt), by the shop's webhook or its events catch-up (EVENTS_CATCH_UP_INTERVAL_MS)`;
        ctx.progress(`refund: waiting up to ${ctx.refundWaitMs / 1000} s for ${what}`);
        const recorded = await waitUntil(ctx.refundWaitMs, async () => {
          const now = await shop.order(order.id);
          return now.refundedAt ? now : null;
        });
        if (!recorded) throw new JourneyFailure(`waited ${ctx.refundWaitMs / 1000} s for ${what}: not recorded`);
        if (recorded.refundReason !== "provider")
          throw new JourneyFailure(`the shop recorded the refund as ${recorded.refundReason}, expected provider`);
        return passed(
          `${refund.id} ${refund.status} at Stripe, recorded by the shop after ${((Date.now() - started) / 1000).toFixed(1)} s`,
          `${paid.id} refunded`,
        );
      });
    },
  },
];

/**
 * 3-D Secure in Chromium, as a shopper: a card typed into the Payment
 * Element, the bank's challenge Stripe.js opens over the checkout, and the
 * shop's answer on the same page.
 */
function threeDSecure(name: string, action: Authentication): Journey {
  const expected =
    action === "complete"
      ? { shown: "Thank you — your order is paid", order: "paid", intent: "succeeded" as const }
      : // The shop cancels an intent whose authentication failed.
        { shown: "Authentication failed", order: "failed", intent: "canceled" as const };
  return {
    name,
    async run(ctx) {
      const context = await ctx.browser.newContext({ baseURL: ctx.app.origin });
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(ctx.stepTimeoutMs);
        await page.goto("/");
        const product = page.getByRole("list", { name: "Products" }).getByRole("listitem").first();
        await product.getByRole("button", { name: /^Add to cart/ }).click();
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: /^Cart/ }).click();
        await typeCard(page, THREE_D_SECURE_CARD);
        const answers: string[] = [];
        const keys: string[] = [];
        page.on("response", (res) => {
          const path = new URL(res.url()).pathname;
          if (res.request().method() !== "POST" || !path.startsWith("/api/checkout")) return;
          if (path !== "/api/checkout") {
            answers.push(`return ${res.status()}`);
            return;
          }
          keys.push(res.request().headers()["idempotency-key"] ?? "");
          void res.json().then(
            (body: { error?: string; status?: string }) => answers.push(`${res.status()} ${body.error ?? body.status}`),
            () => answers.push(String(res.status())),
          );
        });
        await page.getByRole("button", { name: /^Pay / }).click();
        try {
          await pressOnProviderPage(page, action, null, ctx.stepTimeoutMs);
        } catch {
          const status = await page
            .getByRole("region", { name: "Payment" })
            .getByRole("status")
            .textContent({ timeout: 2_000 })
            .catch(() => page.url());
          throw new JourneyFailure(
            `Pay did not lead to the provider's page within ${ctx.stepTimeoutMs / 1000} s: ` +
              `POST /api/checkout answered ${tally(answers)}; the checkout says "${squash(status)}"`,
          );
        }
        const shown = page.getByText(expected.shown).first();
        try {
          await shown.waitFor();
        } catch {
          const status = await page
            .getByRole("region", { name: "Payment" })
            .getByRole("status")
            .textContent({ timeout: 2_000 })
            .catch(() => "nothing");
          throw new JourneyFailure(
            `the checkout says "${squash(status)}", expected "${expected.shown}"; the shop answered ${tally(answers)}`,
          );
        }
        const key = keys[0] ?? "";
        const shop = new Shop(context.request);
        const attempt = await shop.attempt(key);
        const orderId = attempt.response?.body.orderId;
        if (typeof orderId !== "string") throw new JourneyFailure(`GET /api/checkout/${key} names no order`);
        const order = await shop.order(orderId);
        if (order.status !== expected.order)
          throw new JourneyFailure(`the order is ${order.status}, expected ${expected.order}`);
        return passed(
          `"${expected.shown}" after 3-D Secure in place, order ${order.status}`,
          await intent(ctx, order, expected.intent),
        );
      } finally {
        await context.close();
      }
    },
  };
}

/** Types a card into the Payment Element (Stripe's iframe title and input names, the emulator's alike). */
async function typeCard(page: Page, number: string): Promise<void> {
  const frame = page.frameLocator('iframe[title="Secure payment input frame"]');
  await frame.locator('input[name="number"]').fill(number);
  await frame.locator('input[name="expiry"]').fill("12 / 34");
  await frame.locator('input[name="cvc"]').fill("123");
  const postal = frame.locator('input[name="postalCode"]');
  if (await postal.isVisible()) await postal.fill("10001");
}

/** A ConfirmationToken for a test payment method, made on a server (`POST /v1/test_helpers/confirmation_tokens`). */
async function confirmationToken(provider: Provider, paymentMethod: string): Promise<string> {
  try {
    return (await provider.stripe.testHelpers.confirmationTokens.create({ payment_method: paymentMethod })).id;
  } catch (error) {
    throw new JourneyFailure(
      `Stripe refused a test ConfirmationToken for ${paymentMethod}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function payWithToken(
  shop: Shop,
  confirmationToken: string,
): Promise<{ key: string; body: unknown; answer: Answer }> {
  const key = randomUUID();
  const body = { items: await shop.oneItem(), confirmationToken };
  return { key, body, answer: await shop.checkout(key, body) };
}

/** A fresh shopper (a guest session of its own) for one journey. */
export async function withShop(
  ctx: SmokeContext,
  journey: (shop: Shop) => Promise<JourneyResult>,
): Promise<JourneyResult> {
  const context = await request.newContext({ baseURL: ctx.app.origin, timeout: ctx.stepTimeoutMs });
  try {
    const shop = new Shop(context);
    await shop.startSession();
    return await journey(shop);
  } finally {
    await context.dispose();
  }
}

async function pay(shop: Shop, paymentMethod: string): Promise<{ key: string; body: unknown; answer: Answer }> {
  const key = randomUUID();
  const body = { items: await shop.oneItem(), paymentMethod };
  return { key, body, answer: await shop.checkout(key, body) };
}

async function paidOrder(shop: Shop, answer: Answer): Promise<Order> {
  if (answer.status !== 201 || answer.body.status !== "paid")
    throw new JourneyFailure(`${VISA} answered ${describe(answer)}, expected 201 paid`);
  const order = await shop.order(String(answer.body.orderId));
  if (order.status !== "paid") throw new JourneyFailure(`the paid order is ${order.status}`);
  if (order.amountCents !== answer.body.amountCents)
    throw new JourneyFailure(`the order is for ${order.amountCents}, the answer said ${answer.body.amountCents}`);
  return order;
}

/** The provider's side of a journey: one intent, its status and amount; or a note that it was not checked. */
async function intent(
  ctx: SmokeContext,
  order: Order,
  status: "succeeded" | "requires_payment_method" | "canceled",
): Promise<string> {
  if (!ctx.provider) return NOT_CHECKED;
  const found = await ctx.provider.theIntentOf(order, status);
  return `Stripe: one PaymentIntent, ${found.id} ${found.status} ${found.amount} ${found.currency}`;
}

export function passed(shop: string, provider: string): JourneyResult {
  return { outcome: "passed", detail: `${shop} · ${provider}` };
}

function money(order: Order): string {
  return `${order.amountCents} ${order.currency}`;
}

/** `503 payment_unavailable ×6, 202 requires_action`: repeated answers counted. */
function tally(answers: string[]): string {
  if (answers.length === 0) return "nothing";
  const runs: Array<{ answer: string; times: number }> = [];
  for (const answer of answers) {
    const last = runs.at(-1);
    if (last?.answer === answer) last.times += 1;
    else runs.push({ answer, times: 1 });
  }
  return runs.map((r) => (r.times > 1 ? `${r.answer} ×${r.times}` : r.answer)).join(", ");
}

export function squash(text: string | null): string {
  return (text ?? "").replace(/\s+/g, " ").trim().slice(0, 200);
}

export async function waitUntil<T>(timeoutMs: number, check: () => Promise<T | null>): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
