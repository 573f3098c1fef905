import type Stripe from "stripe";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { loadShapeChecker, type ShapeChecker } from "./sdk-shapes";
import { rejection, startReceiver, useEmulator, VISA } from "./test-support";

// Every object the emulator answers holds every field stripe-node's types
// declare always present, with null only where the type allows it. The
// field lists come from the installed SDK's .d.ts, not from this file.
const emulator = useEmulator();
const TYPES = [
  "Stripe.PaymentIntent",
  "Stripe.Charge",
  "Stripe.Refund",
  "Stripe.Event",
  "Stripe.ApiList<Stripe.PaymentIntent>",
  "Stripe.ApiList<Stripe.Refund>",
  "Stripe.ApiList<Stripe.Event>",
  "Stripe.ApiSearchResult<Stripe.PaymentIntent>",
  "Stripe.PaymentMethod",
  "Stripe.ConfirmationToken",
] as const;
type TypeName = (typeof TYPES)[number];
let shapes: ShapeChecker;

beforeAll(() => {
  shapes = loadShapeChecker(TYPES);
}, 60_000);

function expectShape(typeName: TypeName, value: unknown) {
  expect(shapes.violations(typeName, value), typeName).toEqual([]);
}

describe("the SDK's always-present fields", () => {
  it("are read from the SDK's types: a bare object lacks them", () => {
    const missing = shapes.violations("Stripe.Refund", { id: "re_1", object: "refund" });
    expect(missing).toEqual(expect.arrayContaining(["Stripe.Refund.amount: missing", "Stripe.Refund.status: missing"]));
    expect(shapes.violations("Stripe.PaymentIntent", { id: "pi_1", payment_method_types: null })).toContain(
      "Stripe.PaymentIntent.payment_method_types: null, but the type has no null",
    );
    // Nested objects too, an event's data.object by the event's type.
    const event = { type: "refund.failed", data: { object: { id: "re_1", object: "refund" } } };
    expect(shapes.violations("Stripe.Event", event)).toEqual(
      expect.arrayContaining(["Stripe.Event.data.object.status: missing", "Stripe.Event.pending_webhooks: missing"]),
    );
    const redirect = { next_action: { type: "redirect_to_url", redirect_to_url: { url: "http://x" } } };
    expect(shapes.violations("Stripe.PaymentIntent", redirect)).toContain(
      "Stripe.PaymentIntent.next_action.redirect_to_url.return_url: missing",
    );
  });

  it("are on every PaymentIntent, Charge and Refund the emulator answers, in each state", async () => {
    const client = emulator.stripe();
    const returnUrl = "http://127.0.0.1:3000/checkout/return";
    const paid = await client.paymentIntents.create({ ...VISA, metadata: { orderId: "o1" } });
    const declined = await rejection(
      client.paymentIntents.create({ ...VISA, payment_method: "pm_card_chargeDeclined" }),
    );
    const redirect = await client.paymentIntents.create({
      ...VISA,
      payment_method: "pm_card_threeDSecure2Required",
      return_url: returnUrl,
    });
    const stripeSdk = await client.paymentIntents.create({ ...VISA, payment_method: "pm_card_threeDSecure2Required" });
    const open = await client.paymentIntents.create({ amount: 1000, currency: "usd" });
    const canceled = await client.paymentIntents.cancel(open.id, { cancellation_reason: "abandoned" });
    const intents = [
      paid,
      redirect,
      stripeSdk,
      canceled,
      await client.paymentIntents.retrieve(declined.payment_intent?.id ?? ""),
    ];
    expect(intents.map((intent) => intent.status)).toEqual([
      "succeeded",
      "requires_action",
      "requires_action",
      "canceled",
      "requires_payment_method",
    ]);
    for (const intent of intents) expectShape("Stripe.PaymentIntent", intent);
    expectShape("Stripe.PaymentIntent", declined.payment_intent);

    expectShape("Stripe.Charge", await client.charges.retrieve(String(paid.latest_charge)));
    expectShape("Stripe.Charge", await client.charges.retrieve(String(declined.payment_intent?.latest_charge)));

    const refund = await client.refunds.create({ payment_intent: paid.id, amount: 500 });
    const failing = await client.paymentIntents.create({ ...VISA, payment_method: "pm_card_refundFail" });
    const pending = await client.paymentIntents.create({ ...VISA, payment_method: "pm_card_pendingRefund" });
    const refunds = [
      refund,
      await client.refunds.create({ payment_intent: failing.id }),
      await client.refunds.create({ payment_intent: pending.id }),
    ];
    await vi.waitFor(async () => expect((await client.refunds.retrieve(refunds[1]?.id ?? "")).status).toBe("failed"));
    refunds.push(await client.refunds.retrieve(refunds[1]?.id ?? ""));
    expect(refunds.map((r) => r.status)).toEqual(["succeeded", "succeeded", "pending", "failed"]);
    for (const item of refunds) expectShape("Stripe.Refund", item);

    expectShape("Stripe.ApiList<Stripe.PaymentIntent>", await client.paymentIntents.list({ limit: 100 }));
    expectShape("Stripe.ApiList<Stripe.Refund>", await client.refunds.list({ limit: 100 }));
    expectShape(
      "Stripe.ApiSearchResult<Stripe.PaymentIntent>",
      await client.paymentIntents.search({ query: "metadata['orderId']:'o1'" }),
    );
  });

  it("are on a SEPA debit's token, PaymentMethod and intent, processing and decided", async () => {
    const client = emulator.stripe();
    const token = await client.testHelpers.confirmationTokens.create({
      payment_method_data: { type: "sepa_debit", sepa_debit: { iban: "DE89370400440532013000" } },
    });
    expectShape("Stripe.ConfirmationToken", token);
    const processing = await client.paymentIntents.create({
      amount: 1000,
      currency: "eur",
      confirm: true,
      confirmation_token: token.id,
      allowed_payment_method_types: ["sepa_debit"],
      mandate_data: {
        customer_acceptance: { type: "online", online: { ip_address: "203.0.113.7", user_agent: "test" } },
      },
    });
    expect(processing.status).toBe("processing");
    expectShape("Stripe.PaymentIntent", processing);
    expectShape("Stripe.PaymentMethod", await client.paymentMethods.retrieve(String(processing.payment_method)));
    await emulator.client().advanceClock(60);
    const succeeded = await client.paymentIntents.retrieve(processing.id);
    expect(succeeded.status).toBe("succeeded");
    expectShape("Stripe.PaymentIntent", succeeded);
  });

  it("are on every event, as listed and as delivered, data.object included", async () => {
    const receiver = await startReceiver();
    try {
      await emulator.setWebhooks({ url: receiver.url });
      const client = emulator.stripe();
      const paid = await client.paymentIntents.create({ ...VISA, payment_method: "pm_card_refundFail" });
      await rejection(client.paymentIntents.create({ ...VISA, payment_method: "pm_card_chargeDeclined" }));
      await client.paymentIntents.create({ ...VISA, payment_method: "pm_card_threeDSecure2Required" });
      await client.paymentIntents.cancel((await client.paymentIntents.create({ amount: 900, currency: "usd" })).id);
      await client.refunds.create({ payment_intent: paid.id });
      await vi.waitFor(async () => expect((await client.events.list({ type: "refund.failed" })).data).toHaveLength(1));
      await vi.waitFor(async () => expect((await emulator.webhooks()).stats.pending).toBe(0));
      const list = await client.events.list({ limit: 100 });
      expectShape("Stripe.ApiList<Stripe.Event>", list);
      expect(new Set(list.data.map((event) => event.type))).toEqual(
        new Set([
          "payment_intent.created",
          "payment_intent.succeeded",
          "payment_intent.payment_failed",
          "payment_intent.requires_action",
          "payment_intent.canceled",
          "refund.created",
          "charge.refunded",
          "refund.updated",
          "refund.failed",
          "charge.refund.updated",
        ]),
      );
      const delivered = receiver.received.map((delivery) => JSON.parse(delivery.body) as Stripe.Event);
      expect(delivered).toHaveLength(list.data.length);
      for (const event of delivered) expectShape("Stripe.Event", event);
    } finally {
      await receiver.close();
    }
  });
});
