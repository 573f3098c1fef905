import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { createOwnDatabase, type OwnDatabase } from "@/tests/helpers/own-database";
import { checkout } from "../checkout/checkout";
import type { CheckoutRequest } from "../checkout/request";
import { createPrismaClient } from "../db";
import type { PrismaClient } from "../generated/prisma/client";
import { IdempotencyEngine } from "../idempotency/engine";
import { createStripeClient } from "../payments/stripe-client";
import { catchUpEvents } from "../webhooks/catch-up";
import type { WebhookDeps } from "../webhooks/deps";
import { storeEvent } from "../webhooks/inbox";
import { processDueEvents } from "../webhooks/process";
import { runAudit, type AuditDeps } from "./audit";
import { moneyWrong, type AuditReport } from "./findings";
import { auditTable } from "./table";

/**
 * The audit on a real database and the emulator through the real SDK: a shop
 * whose checkouts went right has nothing to report; the wrongs an operator
 * must hear of are each named, with the ids to act on. A database of its own,
 * so the orders are this file's only.
 */
let database: OwnDatabase;
let prisma: PrismaClient;
let emulator: StripeEmulator;
let deps: WebhookDeps;
const KEY = "sk_test_audit";
const HOUR = 3_600_000;

beforeAll(async () => {
  database = await createOwnDatabase("audit");
  prisma = createPrismaClient(database.url);
  emulator = await startStripeEmulator({ port: 0 });
  await control().reset();
  deps = {
    prisma,
    stripe: createStripeClient({ secretKey: KEY, apiBase: emulator.url, maxNetworkRetries: 0 }),
    idempotency: new IdempotencyEngine(prisma, {
      inProgressTtlMs: 60_000,
      retentionHours: 24,
      attemptDeadlineMs: HOUR,
    }),
    appOrigin: "http://localhost:3000",
    actionTimeoutMs: HOUR,
    webhookSecret: "whsec_emulator",
    leaseMs: 60_000,
  };
});
afterAll(async () => {
  await emulator.close();
  await prisma.$disconnect();
  await database.drop();
});

const control = () => new EmulatorClient(emulator.url, { apiKey: KEY });
const sleeps: number[] = [];
const auditDeps = (): AuditDeps => ({
  prisma,
  stripe: deps.stripe,
  attemptDeadlineMs: HOUR,
  actionTimeoutMs: HOUR,
  sleep: async (ms) => void sleeps.push(ms),
});
const lastHour = () => ({ from: new Date(Date.now() - HOUR), to: new Date(Date.now() + 1_000) });
const audit = () => runAudit(auditDeps(), lastHour());

async function pay(paymentMethod: string): Promise<{ orderId: string; paymentIntentId: string | undefined }> {
  const customer = await prisma.customer.create({ data: {}, select: { id: true } });
  const body: CheckoutRequest = { items: [{ sku: "mug-enamel", quantity: 1 }], paymentMethod };
  const result = await checkout(deps, { customerId: customer.id, key: randomUUID(), body });
  if (result.kind !== "response") throw new Error(`checkout answered ${result.kind}`);
  const answer = JSON.parse(result.response.body) as { orderId: string; paymentIntentId?: string };
  return { orderId: answer.orderId, paymentIntentId: answer.paymentIntentId };
}

/** The shop hears of what happened at Stripe as the maintenance loop does: the event list into the inbox, processed. */
async function hearFromStripe(): Promise<void> {
  await catchUpEvents(deps);
  await processDueEvents(deps);
}

async function refundSettled(paymentIntentId: string, status: "succeeded" | "failed"): Promise<void> {
  await deps.stripe.refunds.create({ payment_intent: paymentIntentId });
  await expect.poll(async () => (await control().refunds(paymentIntentId)).map((r) => r.status)).toEqual([status]);
}

const kinds = (report: AuditReport) => report.findings.map((f) => f.kind).sort();

describe("the audit of a window", () => {
  it("finds nothing in a shop whose payments, declines and refunds all went right", async () => {
    await pay("pm_card_visa");
    await pay("pm_card_chargeDeclined");
    const refunded = await pay("pm_card_visa");
    await refundSettled(refunded.paymentIntentId!, "succeeded");
    await hearFromStripe();
    expect(await prisma.order.findUniqueOrThrow({ where: { id: refunded.orderId } })).toMatchObject({
      refundedAt: expect.any(Date),
    });

    const report = await audit();
    expect(report.findings).toEqual([]);
    expect(report.intents).toBe(3);
    expect(moneyWrong(report)).toBe(false);
    expect(auditTable(report)).toMatch(/0 findings: the shop and Stripe agree\./);
  });

  it("names a charge made behind the shop's back, a refund that failed, an event stuck in the inbox, and a double charge", async () => {
    // A charge with the shop's metadata, made directly at Stripe: no order has it.
    const behind = await deps.stripe.paymentIntents.create({
      amount: 4_200,
      currency: "usd",
      payment_method: "pm_card_visa",
      confirm: true,
      allowed_payment_method_types: ["card"],
      metadata: { orderId: randomUUID(), customerId: randomUUID(), idempotencyKey: randomUUID() },
    });
    // A paid order whose refund the card network refused later.
    const owed = await pay("pm_card_refundFail");
    await refundSettled(owed.paymentIntentId!, "failed");
    // An event the inbox could not process, again and again.
    await hearFromStripe();
    const eventId = `evt_${randomUUID().replaceAll("-", "")}`;
    await storeEvent(prisma, { id: eventId, type: "payment_intent.succeeded", paymentIntentId: null, payload: "{}" });
    await prisma.webhookEvent.update({
      where: { id: eventId },
      data: { attempts: 7, lastError: "order not found", nextAttemptAt: new Date(Date.now() + HOUR) },
    });
    expect(await prisma.order.findUniqueOrThrow({ where: { id: owed.orderId } })).toMatchObject({
      refundFailedAt: expect.any(Date),
    });
    // The same attempt charged twice (a build without idempotency): two intents, one attempt's metadata.
    const twice = await pay("pm_card_visa");
    const first = await deps.stripe.paymentIntents.retrieve(twice.paymentIntentId!);
    const second = await deps.stripe.paymentIntents.create({
      amount: first.amount,
      currency: first.currency,
      payment_method: "pm_card_visa",
      confirm: true,
      allowed_payment_method_types: ["card"],
      metadata: first.metadata,
    });

    const report = await audit();
    expect(kinds(report)).toEqual(["charge_without_order", "double_charge", "event_not_processed", "refund_failed"]);
    const byKind = Object.fromEntries(report.findings.map((f) => [f.kind, f]));
    expect(byKind.charge_without_order).toMatchObject({
      paymentIntentIds: [behind.id],
      amountCents: 4_200,
      dashboardUrl: `https://dashboard.stripe.com/test/payments/${behind.id}`,
    });
    expect(byKind.refund_failed).toMatchObject({
      orderId: owed.orderId,
      customerId: expect.any(String),
      amountCents: 1_800,
      paymentIntentIds: [owed.paymentIntentId],
    });
    expect(byKind.event_not_processed).toMatchObject({ eventId });
    expect(byKind.double_charge!.paymentIntentIds!.sort()).toEqual([first.id, second.id].sort());
    expect(report.counts).toMatchObject({
      charge_without_order: 1,
      double_charge: 1,
      refund_failed: 1,
      event_not_processed: 1,
    });
    expect(moneyWrong(report)).toBe(true);
    const table = auditTable(report);
    expect(table).toMatch(/charge_without_order +1 +money is wrong/);
    expect(table).toContain(`order ${owed.orderId}`);

    // Refunded at Stripe (an operator's repair), the double charge is no longer one.
    await refundSettled(second.id, "succeeded");
    expect(kinds(await audit())).not.toContain("double_charge");
  });

  it("reads only its window, page by page, and resumes a page refused with 429 after backing off", async () => {
    const old = Math.floor((Date.now() - 3 * 24 * HOUR) / 1000);
    await control().history(
      Array.from({ length: 250 }, (_, i) => ({ amount: 500, currency: "usd", created: old + i })),
    );
    const requests = async (run: () => Promise<unknown>) => {
      const before = await control().stat("requests");
      await run();
      return (await control().stat("requests")) - before;
    };
    // The last hour: one page of intents, one of refunds; the old day is never read.
    expect(await requests(audit)).toBe(2);

    const days = { from: new Date(Date.now() - 4 * 24 * HOUR), to: new Date(Date.now() - 2 * 24 * HOUR) };
    expect(await requests(() => runAudit(auditDeps(), days))).toBe(4); // 3 pages of intents, 1 of refunds

    sleeps.length = 0;
    const { stats: before } = await control().snapshot();
    await control().faults({ failNext: { status: 429, times: 2 } });
    const resumed = await requests(() => runAudit(auditDeps(), days));
    const { stats: after } = await control().snapshot();
    expect(after.failedInjected - before.failedInjected).toBe(2);
    expect(sleeps).toHaveLength(2);
    expect(resumed).toBe(6); // the refused page asked again, no page asked twice otherwise
  });
});
