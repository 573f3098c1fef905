import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { checkout } from "@/lib/checkout/checkout";
import type { CheckoutRequest } from "@/lib/checkout/request";
import { createPrismaClient, engineDatabase } from "@/lib/db";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { IdempotencyEngine } from "@checkout/idempotency";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { catchUpEvents } from "@/lib/webhooks/catch-up";
import type { WebhookDeps } from "@/lib/webhooks/deps";
import { storeEvent } from "@/lib/webhooks/inbox";
import { processDueEvents } from "@/lib/webhooks/process";
import { TEST_IDENTITY, TEST_SHOP_ID } from "./identity";
import { createOwnDatabase, type OwnDatabase } from "./own-database";

/**
 * A shop for the audit's tests: a database of its own, the emulator, and the
 * real checkout and webhook processing, so what the audit reads is what the
 * shop really writes. The wrongs are made as they happen in production.
 */
export const HOUR = 3_600_000;

export interface AuditShop {
  database: OwnDatabase;
  prisma: PrismaClient;
  emulator: StripeEmulator;
  deps: WebhookDeps;
  control: EmulatorClient;
  close(): Promise<void>;
}

export async function startAuditShop(label: string, apiKey: string): Promise<AuditShop> {
  const database = await createOwnDatabase(label);
  const prisma = createPrismaClient(database.url);
  const emulator = await startStripeEmulator({ port: 0 });
  const control = new EmulatorClient(emulator.url, { apiKey });
  await control.reset();
  const deps: WebhookDeps = {
    prisma,
    stripe: createStripeClient({ secretKey: apiKey, apiBase: emulator.url, maxNetworkRetries: 0 }),
    idempotency: new IdempotencyEngine(engineDatabase(prisma), {
      inProgressTtlMs: 60_000,
      retentionHours: 24,
      attemptDeadlineMs: HOUR,
    }),
    appOrigin: "http://localhost:3000",
    actionTimeoutMs: HOUR,
    webhookSecret: "whsec_emulator",
    leaseMs: 60_000,
    identity: TEST_IDENTITY,
  };
  return {
    database,
    prisma,
    emulator,
    deps,
    control,
    close: async () => {
      await emulator.close();
      await prisma.$disconnect();
      await database.drop();
    },
  };
}

/** One checkout of one mug (1800 usd) by a new customer, through the shop's own use case. */
export async function pay(shop: AuditShop, paymentMethod: string) {
  const customer = await shop.prisma.customer.create({ data: {}, select: { id: true } });
  const body: CheckoutRequest = { items: [{ sku: "mug-enamel", quantity: 1 }], paymentMethod };
  const result = await checkout(shop.deps, { customerId: customer.id, key: randomUUID(), body });
  if (result.kind !== "response") throw new Error(`checkout answered ${result.kind}`);
  const answer = JSON.parse(result.response.body) as { orderId: string; paymentIntentId?: string };
  return { orderId: answer.orderId, paymentIntentId: answer.paymentIntentId, customerId: customer.id };
}

/** The shop hears of what happened at Stripe as the maintenance loop does: the event list into the inbox, processed. */
export async function hearFromStripe(shop: AuditShop): Promise<void> {
  await catchUpEvents(shop.deps);
  await processDueEvents(shop.deps);
}

/** A refund made at Stripe (in the Dashboard, say), once the card network has answered it. */
export async function refundSettled(shop: AuditShop, paymentIntentId: string, status: "succeeded" | "failed") {
  await shop.deps.stripe.refunds.create({ payment_intent: paymentIntentId });
  await expect.poll(async () => (await shop.control.refunds(paymentIntentId)).map((r) => r.status)).toEqual([status]);
}

/** A day that went right: a payment, a decline, a payment refunded at Stripe, each heard of by the shop. */
export async function seedCleanDay(shop: AuditShop) {
  await pay(shop, "pm_card_visa");
  await pay(shop, "pm_card_chargeDeclined");
  const refunded = await pay(shop, "pm_card_visa");
  await refundSettled(shop, refunded.paymentIntentId!, "succeeded");
  await hearFromStripe(shop);
  return { refunded };
}

/**
 * The three wrongs of the audit's promise: a charge made behind the shop's
 * back (an intent with the shop's metadata created directly at Stripe), an
 * order whose refund failed at the card network, an event stuck in the inbox.
 */
export async function seedThreeWrongs(shop: AuditShop) {
  const owed = await pay(shop, "pm_card_refundFail");
  await refundSettled(shop, owed.paymentIntentId!, "failed");
  await hearFromStripe(shop);
  // After the shop last heard from Stripe: its events catch-up would restore or refund a success it has no order for.
  const behind = await shop.deps.stripe.paymentIntents.create({
    amount: 4_200,
    currency: "usd",
    payment_method: "pm_card_visa",
    confirm: true,
    allowed_payment_method_types: ["card"],
    metadata: { shop: TEST_SHOP_ID, orderId: randomUUID(), customerId: randomUUID(), idempotencyKey: randomUUID() },
  });
  const eventId = `evt_${randomUUID().replaceAll("-", "")}`;
  await storeEvent(shop.prisma, {
    id: eventId,
    type: "payment_intent.succeeded",
    paymentIntentId: null,
    payload: "{}",
  });
  // What the inbox looks like after seven failed tries: kept, with the reason, due again later.
  await shop.prisma.webhookEvent.update({
    where: { id: eventId },
    data: { attempts: 7, lastError: "order not found", nextAttemptAt: new Date(Date.now() + HOUR) },
  });
  expect(await shop.prisma.order.findUniqueOrThrow({ where: { id: owed.orderId } })).toMatchObject({
    refundFailedAt: expect.any(Date),
  });
  return { behind, owed, eventId };
}
