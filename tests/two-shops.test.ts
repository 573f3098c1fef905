import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attemptId } from "@/lib/checkout/attempt-id";
import { attemptMetadata, shopIdentity } from "@/lib/checkout/intent-ownership";
import { CHECKOUT_ENDPOINT } from "@/lib/checkout/request";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { startTestApp, TEST_METRICS_TOKEN, type TestApp } from "./app-server";
import { TestDb } from "./helpers/db";
import { CART_LINES } from "./helpers/identity";
import { scrape } from "./helpers/metrics";
import { createOwnDatabase, type OwnDatabase } from "./helpers/own-database";
import { cart, newKey, Shopper, waitFor } from "./helpers/shopper";

/**
 * Two shops — two databases, two app processes, each its SHOP_ID and secret —
 * on one Stripe account (the emulator's default account, one key), as staging
 * and production, or two laptops running the demo, share one test account.
 * Each pays, declines and loses an attempt's rows; each catch-up reads every
 * event of the account, and restores its own lost order only: neither
 * restores, refunds, cancels or adopts an intent of the other. An intent
 * naming a shop whose metadata was edited is never restored or refunded: it
 * raises the alarm.
 */
interface Shop {
  id: string;
  secret: string;
  database: OwnDatabase;
  db: TestDb;
  app: TestApp;
}

let emulator: StripeEmulator;
const shops: Shop[] = [];
const SECRETS = [
  "3b7f0c9e1a5d4f8b2e6c0a9d3f7b1e5c8a2d6f0b4e9c3a7d1f5b8e2c6a0d4f9b",
  "c8e2a6f0d4b9e3c7a1f5d8b2e6c0a4f9d3b7e1c5a9f2d6b0e4c8a3f7d1b5e9c2",
];

beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
  for (const [i, label] of ["shopa", "shopb"].entries()) {
    const database = await createOwnDatabase(label);
    const app = await startTestApp(
      {
        DATABASE_URL: database.url,
        SHOP_ID: label,
        SESSION_SECRET: SECRETS[i]!,
        MAINTENANCE_INTERVAL_MS: "300",
        EVENTS_CATCH_UP_INTERVAL_MS: "300",
        PAYMENT_ATTEMPT_DEADLINE_MS: "120000",
      },
      { url: emulator.url, apiKey: "sk_test_emulator" },
    );
    shops.push({ id: label, secret: SECRETS[i]!, database, db: new TestDb(database.url), app });
  }
}, 120_000);
afterAll(async () => {
  for (const shop of shops) {
    await shop.app.stop();
    await shop.db.close();
    await shop.database.drop();
  }
  await emulator?.close();
});

const control = () => new EmulatorClient(emulator.url);
const stripe = () => createStripeClient({ secretKey: "sk_test_emulator", apiBase: emulator.url });

describe("two shops on one Stripe account", () => {
  it("each pays, declines and restores its own lost order; neither touches the other's intents", async () => {
    const lost: Array<{ shop: Shop; orderId: string; customerId: string }> = [];
    for (const shop of shops) {
      const shopper = await Shopper.arrive(shop.app.url);
      const declined = await shopper.checkout(newKey(), cart("pm_card_chargeDeclined"));
      expect(declined.status).toBe(402);
      const key = newKey();
      const paid = await shopper.checkout(key, cart());
      expect(paid.status).toBe(201);
      // As a failover to an asynchronous replica loses the last commits.
      expect(await shop.db.loseAttempt(shopper.customerId!, key)).toEqual({ keys: 1, orders: 1 });
      lost.push({ shop, orderId: paid.body.orderId, customerId: shopper.customerId! });
    }
    const ledger = await control().ledger();
    expect(ledger.map((pi) => pi.metadata.shop).sort()).toEqual(["shopa", "shopa", "shopb", "shopb"]);

    for (const { shop, orderId } of lost) {
      const restored = await waitFor(`${shop.id} to restore its lost order`, () => shop.db.order(orderId), 60_000);
      expect(restored).toMatchObject({ status: "paid" });
    }
    // Each shop's catch-up saw the other's intents, and left them alone.
    for (const shop of shops)
      await waitFor(`${shop.id} to count the other's intents`, async () =>
        ((await scrape(shop.app.url)).get("checkout_foreign_intents_total") ?? 0) > 0 ? true : null,
      );
    for (const [i, shop] of shops.entries()) {
      const other = lost[1 - i]!;
      expect(await shop.db.order(other.orderId)).toBeNull();
      expect(await shop.db.ordersOf(other.customerId)).toEqual([]);
    }
    const stats = await control().stats();
    expect(stats).toMatchObject({ charges: 2, refunds: 0, cancellations: 0 });
    expect((await control().ledger()).map((pi) => pi.status).sort()).toEqual([
      "requires_payment_method",
      "requires_payment_method",
      "succeeded",
      "succeeded",
    ]);
  }, 120_000);

  it("an intent whose metadata was edited is never restored or refunded, and raises the alarm", async () => {
    const shop = shops[0]!;
    const customerId = randomUUID();
    const key = randomUUID();
    const orderId = attemptId({ subjectId: customerId, endpoint: CHECKOUT_ENDPOINT, key });
    // What the shop signed: two tees and a mug for $68.00, then the price of the tee edited to $0.01 (the amount with it).
    const signed = attemptMetadata(shopIdentity(shop.id, [shop.secret]), {
      orderId,
      customerId,
      idempotencyKey: key,
      lines: CART_LINES,
      amountCents: 6_800,
      currency: "usd",
    });
    const edited = { ...signed, lines_1: signed.lines_1!.replace("2500", "1") };
    expect(edited.lines_1).not.toBe(signed.lines_1);
    const intent = await stripe().paymentIntents.create({
      amount: 1_802,
      currency: "usd",
      payment_method: "pm_card_visa",
      confirm: true,
      allowed_payment_method_types: ["card"],
      metadata: edited,
    });
    expect(intent.status).toBe("succeeded");

    const alarmed = await waitFor(
      "the alarm about the edited intent",
      async () => {
        const res = await fetch(`${shop.app.url}/api/health`, {
          headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` },
        });
        const body = (await res.json()) as { ok: boolean; alarms?: string[] };
        return body.alarms?.some((a) => a.includes(intent.id)) ? { status: res.status, body } : null;
      },
      60_000,
    );
    expect(alarmed).toMatchObject({ status: 200, body: { ok: true } });
    expect(alarmed.body.alarms!.find((a) => a.includes(intent.id))).toMatch(/MAC does not verify/);
    const metrics = await scrape(shop.app.url);
    expect(metrics.get('checkout_alarms{kind="intent_tampered"}')).toBe(1);
    expect(metrics.get("checkout_tampered_intents_total")).toBeGreaterThanOrEqual(1);
    // Left alone: no order restored, nothing refunded, in either shop.
    for (const each of shops) expect(await each.db.order(orderId)).toBeNull();
    expect(await control().refunds(intent.id)).toEqual([]);
    expect((await stripe().paymentIntents.retrieve(intent.id)).status).toBe("succeeded");
  }, 90_000);
});
