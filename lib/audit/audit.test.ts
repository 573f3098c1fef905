import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  HOUR,
  pay,
  refundSettled,
  seedCleanDay,
  seedThreeWrongs,
  startAuditShop,
  type AuditShop,
} from "@/tests/helpers/audit-shop";
import { runAudit, type AuditDeps } from "./audit";
import { moneyWrong, type AuditReport } from "./findings";
import { auditTable } from "./table";

/**
 * The audit on a real database and the emulator through the real SDK: a shop
 * whose checkouts went right has nothing to report; the wrongs an operator
 * must hear of are each named, with the ids to act on.
 */
let shop: AuditShop;
beforeAll(async () => {
  shop = await startAuditShop("audit", "sk_test_audit");
});
afterAll(() => shop.close());

const sleeps: number[] = [];
const auditDeps = (): AuditDeps => ({
  prisma: shop.prisma,
  stripe: shop.deps.stripe,
  identity: shop.deps.identity,
  attemptDeadlineMs: HOUR,
  actionTimeoutMs: HOUR,
  sleep: async (ms) => void sleeps.push(ms),
});
const lastHour = () => ({ from: new Date(Date.now() - HOUR), to: new Date(Date.now() + 1_000) });
const audit = () => runAudit(auditDeps(), lastHour());
const kinds = (report: AuditReport) => report.findings.map((f) => f.kind).sort();

describe("the audit of a window", () => {
  it("finds nothing in a shop whose payments, declines and refunds all went right", async () => {
    const { refunded } = await seedCleanDay(shop);
    expect(await shop.prisma.order.findUniqueOrThrow({ where: { id: refunded.orderId } })).toMatchObject({
      refundedAt: expect.any(Date),
    });
    const report = await audit();
    expect(report.findings).toEqual([]);
    expect(report.intents).toBe(3);
    expect(moneyWrong(report)).toBe(false);
    expect(auditTable(report)).toMatch(/0 findings: the shop and Stripe agree\./);
  });

  it("names a charge made behind the shop's back, a refund that failed, an event stuck in the inbox, and a double charge", async () => {
    const { behind, owed, eventId } = await seedThreeWrongs(shop);
    // The same attempt charged twice (a build without idempotency): two intents, one attempt's metadata.
    const twice = await pay(shop, "pm_card_visa");
    const first = await shop.deps.stripe.paymentIntents.retrieve(twice.paymentIntentId!);
    const second = await shop.deps.stripe.paymentIntents.create({
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
      customerId: owed.customerId,
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
    await refundSettled(shop, second.id, "succeeded");
    expect(kinds(await audit())).not.toContain("double_charge");
  });

  it("reads only its window, page by page, and resumes a page refused with 429 after backing off", async () => {
    const old = Math.floor((Date.now() - 3 * 24 * HOUR) / 1000);
    await shop.control.history(
      Array.from({ length: 250 }, (_, i) => ({ amount: 500, currency: "usd", created: old + i })),
    );
    const requests = async (run: () => Promise<unknown>) => {
      const before = await shop.control.stat("requests");
      await run();
      return (await shop.control.stat("requests")) - before;
    };
    // The last hour: one page of intents, one of refunds; the old day is never read.
    expect(await requests(audit)).toBe(2);

    const days = { from: new Date(Date.now() - 4 * 24 * HOUR), to: new Date(Date.now() - 2 * 24 * HOUR) };
    expect(await requests(() => runAudit(auditDeps(), days))).toBe(4); // 3 pages of intents, 1 of refunds

    sleeps.length = 0;
    const { stats: before } = await shop.control.snapshot();
    await shop.control.faults({ failNext: { status: 429, times: 2 } });
    const resumed = await requests(() => runAudit(auditDeps(), days));
    const { stats: after } = await shop.control.snapshot();
    expect(after.failedInjected - before.failedInjected).toBe(2);
    expect(sleeps).toHaveLength(2);
    expect(resumed).toBe(6); // the refused page asked again, no page asked twice otherwise
  });
});

describe("the audit of operators' refunds", () => {
  it("names an operator's refund attempt that made two Stripe refunds", async () => {
    const paid = await pay(shop, "pm_card_visa");
    const attemptKey = "3b0f7f3e-8c52-4c1e-9d53-1f6a2d9e0a11";
    const twice = [300, 400];
    const made = [];
    for (const amount of twice)
      made.push(
        await shop.deps.stripe.refunds.create({
          payment_intent: paid.paymentIntentId!,
          amount,
          metadata: { attempt_key: attemptKey, order_id: paid.orderId },
        }),
      );
    const report = await audit();
    const finding = report.findings.find((f) => f.kind === "refund_attempt_repeated");
    expect(finding).toMatchObject({
      key: `refund_attempt_repeated:${attemptKey}`,
      attemptKey,
      paymentIntentIds: [paid.paymentIntentId],
    });
    expect(finding!.detail).toContain(made[0]!.id);
    expect(report.findings.filter((f) => f.kind === "refunds_exceed_charge")).toEqual([]);
    expect(moneyWrong(report)).toBe(true);
  });
});
