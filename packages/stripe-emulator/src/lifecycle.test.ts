import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { rejection, useEmulator, VISA } from "./test-support";

const emulator = useEmulator();

describe("payment methods", () => {
  it("answers a pm_ that is not a Stripe test payment method with 400 resource_missing and stores nothing", async () => {
    const client = emulator.stripe();
    const idempotencyKey = randomUUID();
    const error = await rejection(
      client.paymentIntents.create({ ...VISA, payment_method: "pm_card_doesNotExist" }, { idempotencyKey }),
    );
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({
      statusCode: 400,
      code: "resource_missing",
      param: "payment_method",
      message: "No such PaymentMethod: 'pm_card_doesNotExist'",
    });
    expect((await client.paymentIntents.list()).data).toEqual([]);
    // Validation failed before execution, so the key was not used up.
    const paid = await client.paymentIntents.create(VISA, { idempotencyKey });
    expect(paid.lastResponse.headers["idempotent-replayed"]).toBeUndefined();

    const created = await client.paymentIntents.create({ amount: 100, currency: "usd" });
    const onConfirm = await rejection(client.paymentIntents.confirm(created.id, { payment_method: "pm_x" }));
    expect(onConfirm).toMatchObject({ statusCode: 400, code: "resource_missing", param: "payment_method" });
    expect((await emulator.faults()).stats).toMatchObject({ charges: 1, declines: 0 });
  });

  it.each(["pm_card_mastercard", "pm_card_amex", "pm_card_visa_debit"])("charges %s", async (paymentMethod) => {
    expect((await emulator.stripe().paymentIntents.create({ ...VISA, payment_method: paymentMethod })).status).toBe(
      "succeeded",
    );
  });

  it("takes card under allowed_payment_method_types; payment_method_types only from a caller pinned before API 2026-09-30", async () => {
    const client = emulator.stripe();
    const allowed = await client.paymentIntents.create({ ...VISA, allowed_payment_method_types: ["card"] });
    expect(allowed).toMatchObject({
      status: "succeeded",
      allowed_payment_method_types: ["card"],
      payment_method_types: ["card"],
    });
    // stripe-node@23 dropped the older name from its types, not from what it can send; its pinned version refuses it.
    const legacy = { ...VISA, payment_method_types: ["card"] } as Stripe.PaymentIntentCreateParams;
    const removed = await rejection(client.paymentIntents.create(legacy));
    expect(removed).toMatchObject({
      type: "StripeInvalidRequestError",
      statusCode: 400,
      code: "parameter_unknown",
      param: "payment_method_types",
    });
    const created = await client.paymentIntents.create(legacy, { apiVersion: "2026-08-27.dahlia" });
    expect(created.status).toBe("succeeded");
    const error = await rejection(client.paymentIntents.create({ ...VISA, allowed_payment_method_types: ["klarna"] }));
    expect(error).toMatchObject({ statusCode: 400, param: "allowed_payment_method_types" });
    const notAllowed = await rejection(
      client.paymentIntents.create({ ...VISA, allowed_payment_method_types: ["sepa_debit"] }),
    );
    expect(notAllowed).toMatchObject({ statusCode: 400, code: "payment_intent_incompatible_payment_method" });
  });
});

describe("cancel", () => {
  it("cancels with a reason, idempotently, and refuses a succeeded intent", async () => {
    const client = emulator.stripe();
    const created = await client.paymentIntents.create({
      amount: 300,
      currency: "usd",
      payment_method: "pm_card_visa",
    });
    const idempotencyKey = randomUUID();
    const canceled = await client.paymentIntents.cancel(
      created.id,
      { cancellation_reason: "abandoned" },
      { idempotencyKey },
    );
    expect(canceled).toMatchObject({ id: created.id, status: "canceled", cancellation_reason: "abandoned" });
    expect(canceled.canceled_at).toBeGreaterThan(0);
    const replay = await client.paymentIntents.cancel(
      created.id,
      { cancellation_reason: "abandoned" },
      { idempotencyKey },
    );
    expect(replay.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect((await emulator.faults()).stats.cancellations).toBe(1);

    const confirmCanceled = await rejection(client.paymentIntents.confirm(created.id));
    expect(confirmCanceled).toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });

    const paid = await client.paymentIntents.create(VISA);
    const refused = await rejection(client.paymentIntents.cancel(paid.id));
    expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(refused).toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
    expect(refused.message).toMatch(/^You cannot cancel this PaymentIntent because it has a status of succeeded/);
    const badReason = await rejection(
      client.paymentIntents.cancel(created.id, { cancellation_reason: "bored" as "abandoned" }),
    );
    expect(badReason).toMatchObject({ statusCode: 400, param: "cancellation_reason" });
    expect((await client.paymentIntents.retrieve(paid.id)).status).toBe("succeeded");
  });
});

describe("cancel, failing as Stripe can", () => {
  it("answers an injected 500 without cancelling, and the same key then cancels once", async () => {
    const client = emulator.stripe();
    const open = await client.paymentIntents.create({ amount: 300, currency: "usd", payment_method: "pm_card_visa" });
    await emulator.setFaults({ failNext: { status: 500, times: 1 } });
    const idempotencyKey = randomUUID();
    const failed = await rejection(
      client.paymentIntents.cancel(open.id, { cancellation_reason: "requested_by_customer" }, { idempotencyKey }),
    );
    expect(failed).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(failed.statusCode).toBe(500);
    expect((await client.paymentIntents.retrieve(open.id)).status).toBe("requires_confirmation");
    const canceled = await client.paymentIntents.cancel(
      open.id,
      { cancellation_reason: "requested_by_customer" },
      { idempotencyKey },
    );
    expect(canceled).toMatchObject({ status: "canceled", cancellation_reason: "requested_by_customer" });
    expect((await emulator.faults()).stats).toMatchObject({ failedInjected: 1, cancellations: 1 });
  });

  it("cancels an intent waiting for 3-D Secure", async () => {
    const client = emulator.stripe();
    const waiting = await client.paymentIntents.create({
      amount: 300,
      currency: "usd",
      payment_method: "pm_card_threeDSecure2Required",
      confirm: true,
      return_url: "https://shop.example/return",
    });
    expect(waiting.status).toBe("requires_action");
    const canceled = await client.paymentIntents.cancel(waiting.id, { cancellation_reason: "fraudulent" });
    expect(canceled).toMatchObject({ status: "canceled", cancellation_reason: "fraudulent", next_action: null });
  });
});

describe("refunds", () => {
  it("refunds an intent in parts, idempotently, up to what was charged", async () => {
    const client = emulator.stripe();
    const paid = await client.paymentIntents.create({ ...VISA, amount: 1000 });
    const idempotencyKey = randomUUID();
    const first = await client.refunds.create(
      { payment_intent: paid.id, amount: 400, reason: "requested_by_customer", metadata: { why: "one mug" } },
      { idempotencyKey },
    );
    expect(first).toMatchObject({
      object: "refund",
      amount: 400,
      status: "succeeded",
      payment_intent: paid.id,
      charge: paid.latest_charge,
      reason: "requested_by_customer",
      metadata: { why: "one mug" },
    });
    expect(first.id).toMatch(/^re_/);
    const replay = await client.refunds.create(
      { payment_intent: paid.id, amount: 400, reason: "requested_by_customer", metadata: { why: "one mug" } },
      { idempotencyKey },
    );
    expect(replay.id).toBe(first.id);
    expect(replay.lastResponse.headers["idempotent-replayed"]).toBe("true");

    const rest = await client.refunds.create({ payment_intent: paid.id });
    expect(rest.amount).toBe(600);
    const charge = await client.charges.retrieve(String(paid.latest_charge));
    expect(charge).toMatchObject({ amount_refunded: 1000, refunded: true });

    const again = await rejection(client.refunds.create({ payment_intent: paid.id }));
    expect(again).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(again).toMatchObject({ statusCode: 400, code: "charge_already_refunded" });
    const listed = await client.refunds.list({ payment_intent: paid.id });
    expect(listed.data.map((refund) => refund.id)).toEqual([rest.id, first.id]);
    expect((await emulator.faults()).stats.refunds).toBe(2);
  });

  it("refuses more than the unrefunded amount, and an intent without a successful charge", async () => {
    const client = emulator.stripe();
    const paid = await client.paymentIntents.create({ ...VISA, amount: 500 });
    const tooMuch = await rejection(client.refunds.create({ payment_intent: paid.id, amount: 501 }));
    expect(tooMuch).toMatchObject({
      statusCode: 400,
      param: "amount",
      message: "Refund amount ($5.01) is greater than unrefunded amount on charge ($5.00)",
    });
    const declined = await rejection(
      client.paymentIntents.create({ ...VISA, payment_method: "pm_card_chargeDeclined" }),
    );
    const noCharge = await rejection(client.refunds.create({ payment_intent: String(declined.payment_intent?.id) }));
    expect(noCharge).toMatchObject({ statusCode: 400, param: "payment_intent" });
    expect((await client.refunds.list({ payment_intent: paid.id })).data).toEqual([]);
    expect((await emulator.faults()).stats.refunds).toBe(0);
  });
});

describe("search", () => {
  it("finds intents by metadata, with AND and pagination, in Stripe's search_result shape", async () => {
    const client = emulator.stripe();
    const a = await client.paymentIntents.create({ ...VISA, metadata: { orderId: "o-1", shop: "x" } });
    const b = await client.paymentIntents.create({
      amount: 200,
      currency: "usd",
      metadata: { orderId: "o-1", shop: "y" },
    });
    await client.paymentIntents.create({ ...VISA, metadata: { orderId: "o-2" } });

    const byOrder = await client.paymentIntents.search({ query: "metadata['orderId']:'o-1'" });
    expect(byOrder).toMatchObject({
      object: "search_result",
      url: "/v1/payment_intents/search",
      has_more: false,
      next_page: null,
    });
    expect(byOrder.data.map((pi) => pi.id)).toEqual([b.id, a.id]);
    const both = await client.paymentIntents.search({ query: "metadata['orderId']:'o-1' AND metadata['shop']:'x'" });
    expect(both.data.map((pi) => pi.id)).toEqual([a.id]);
    expect(
      (await client.paymentIntents.search({ query: "metadata['orderId']:'o-1' AND status:'succeeded'" })).data.map(
        (pi) => pi.id,
      ),
    ).toEqual([a.id]);

    const first = await client.paymentIntents.search({ query: "metadata['orderId']:'o-1'", limit: 1 });
    expect(first.has_more).toBe(true);
    const second = await client.paymentIntents.search({
      query: "metadata['orderId']:'o-1'",
      limit: 1,
      page: first.next_page ?? "",
    });
    expect(second.data.map((pi) => pi.id)).toEqual([a.id]);
    expect(second.has_more).toBe(false);

    const unsupported = await rejection(client.paymentIntents.search({ query: "amount>100" }));
    expect(unsupported).toMatchObject({ statusCode: 400, param: "query" });
  });
});

describe("API keys", () => {
  it("accepts a minted restricted test key, refuses one never minted and live keys", async () => {
    const { id } = await emulator.client().restrictedKey({ payment_intents: "write" });
    const restricted = emulator.stripe({ secretKey: id });
    expect((await restricted.paymentIntents.create(VISA)).status).toBe("succeeded");
    for (const secretKey of ["rk_test_restricted123", "rk_live_abcdefghijklmnop", "sk_live_abcdefghijklmnop"]) {
      const error = await rejection(emulator.stripe({ secretKey }).paymentIntents.list());
      expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
      expect(error.statusCode).toBe(401);
    }
  });
});

describe("card charges", () => {
  it("carry the card's details, as Stripe fills payment_method_details, on intents captured as Stripe's default", async () => {
    const client = emulator.stripe();
    const paid = await client.paymentIntents.create({ ...VISA, payment_method: "pm_card_mastercard" });
    expect(paid.capture_method).toBe("automatic_async");
    const charge = await client.charges.retrieve(String(paid.latest_charge));
    const method = await client.paymentMethods.retrieve(String(paid.payment_method));
    expect(charge.payment_method_details).toMatchObject({
      type: "card",
      card: {
        brand: "mastercard",
        network: "mastercard",
        last4: method.card?.last4,
        fingerprint: method.card?.fingerprint,
        exp_month: method.card?.exp_month,
        exp_year: method.card?.exp_year,
        amount_authorized: paid.amount,
        checks: { cvc_check: "pass" },
      },
    });
    const declined = await rejection(
      client.paymentIntents.create({ ...VISA, payment_method: "pm_card_chargeDeclined" }),
    );
    const failed = await client.charges.retrieve(String(declined.payment_intent?.latest_charge));
    expect(failed.payment_method_details).toMatchObject({
      type: "card",
      card: { last4: "0002", amount_authorized: null },
    });
  });
});
