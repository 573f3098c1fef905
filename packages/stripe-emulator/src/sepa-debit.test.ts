import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { rejection, useEmulator } from "./test-support";

// SEPA Direct Debit with Stripe's test IBANs, driven by the real stripe-node SDK:
// processing at once, decided when the emulator's clock says so, with Stripe's events.

const emulator = useEmulator();
const MANDATE = {
  customer_acceptance: { type: "online", online: { ip_address: "203.0.113.7", user_agent: "Mozilla/5.0 test" } },
} as const;

async function sepaToken(stripe: Stripe, iban: string) {
  return stripe.testHelpers.confirmationTokens.create({
    payment_method_data: {
      type: "sepa_debit",
      sepa_debit: { iban },
      billing_details: { name: "Jenny Rosen", email: "jenny@example.com" },
    },
  });
}

function debit(stripe: Stripe, token: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}) {
  return stripe.paymentIntents.create({
    amount: 4200,
    currency: "eur",
    confirm: true,
    confirmation_method: "manual",
    confirmation_token: token,
    allowed_payment_method_types: ["card", "sepa_debit"],
    mandate_data: MANDATE,
    ...extra,
  });
}

async function eventTypes(intentId: string): Promise<string[]> {
  const events = await emulator.client().events();
  return events
    .filter((event) => (event.data.object as { id?: string }).id === intentId)
    .map((event) => event.type)
    .reverse();
}

describe("SEPA Direct Debit", () => {
  it("a succeeding test IBAN is processing until the clock reaches Stripe's answer, then succeeded", async () => {
    const stripe = emulator.stripe();
    const token = await sepaToken(stripe, "DE89 3704 0044 0532 0130 00");
    expect(token.payment_method_preview).toMatchObject({
      type: "sepa_debit",
      sepa_debit: { last4: "3000", country: "DE" },
    });
    const intent = await debit(stripe, token.id);
    expect(intent.status).toBe("processing");
    expect(intent.payment_method_types).toEqual(["card", "sepa_debit"]);
    const method = await stripe.paymentMethods.retrieve(intent.payment_method as string);
    expect(method).toMatchObject({ type: "sepa_debit", sepa_debit: { last4: "3000" } });

    expect((await emulator.client().advanceClock(10)).settled).toBe(0);
    expect((await stripe.paymentIntents.retrieve(intent.id)).status).toBe("processing");

    const advanced = await emulator.client().advanceClock(60);
    expect(advanced).toMatchObject({ settled: 1, processing: 0, offsetSeconds: 70 });
    const settled = await stripe.paymentIntents.retrieve(intent.id);
    expect(settled).toMatchObject({ status: "succeeded", amount_received: 4200 });
    expect(await eventTypes(intent.id)).toEqual([
      "payment_intent.created",
      "payment_intent.processing",
      "payment_intent.succeeded",
    ]);
    const succeeded = (await emulator.client().events()).find((event) => event.type === "payment_intent.succeeded");
    // Decided on Stripe's side: no request caused it.
    expect(succeeded?.request).toEqual({ id: null, idempotency_key: null });
  });

  it("refuses to cancel a debit while it is processing, as Stripe does, and decides it as before", async () => {
    const stripe = emulator.stripe();
    const intent = await debit(stripe, (await sepaToken(stripe, "DE89370400440532013000")).id);
    expect(intent.status).toBe("processing");
    const refused = await rejection(stripe.paymentIntents.cancel(intent.id, { cancellation_reason: "abandoned" }));
    expect(refused).toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
    expect(refused.message).toMatch(/^You cannot cancel this PaymentIntent because it has a status of processing/);
    expect((await stripe.paymentIntents.retrieve(intent.id)).status).toBe("processing");
    expect((await emulator.faults()).stats.cancellations).toBe(0);
    await emulator.client().advanceClock(60);
    expect((await stripe.paymentIntents.retrieve(intent.id)).status).toBe("succeeded");
  });

  it("a failing test IBAN goes back to requires_payment_method with payment_failed", async () => {
    const stripe = emulator.stripe();
    const intent = await debit(stripe, (await sepaToken(stripe, "DE62370400440532013001")).id);
    expect(intent.status).toBe("processing");
    await emulator.client().advanceClock(60);
    const failed = await stripe.paymentIntents.retrieve(intent.id);
    expect(failed.status).toBe("requires_payment_method");
    expect(failed.last_payment_error?.payment_method?.type).toBe("sepa_debit");
    expect(await eventTypes(intent.id)).toEqual([
      "payment_intent.created",
      "payment_intent.processing",
      "payment_intent.payment_failed",
    ]);
    expect((await emulator.client().stats()).debitsFailed).toBe(1);
  });

  it("the delayed test IBANs take at least three minutes on the emulator's clock", async () => {
    const stripe = emulator.stripe();
    const later = await debit(stripe, (await sepaToken(stripe, "DE65370400440532013003")).id);
    const failsLater = await debit(stripe, (await sepaToken(stripe, "DE27370400440532013004")).id);
    // The emulator's clock is the wall clock plus what tests advanced, and under load seconds pass
    // between the debits and the advance: up to 5 s before the first is due (180 s), nothing settles.
    const clock = emulator.client();
    const firstDue = Math.min(later.created, failsLater.created) + 180;
    const lastDue = Math.max(later.created, failsLater.created) + 180;
    expect((await clock.advanceClock(Math.max(0, firstDue - 5 - (await clock.advanceClock(0)).now))).settled).toBe(0);
    expect((await stripe.paymentIntents.retrieve(later.id)).status).toBe("processing");
    expect((await clock.advanceClock(Math.max(0, lastDue - (await clock.advanceClock(0)).now))).settled).toBe(2);
    expect((await stripe.paymentIntents.retrieve(later.id)).status).toBe("succeeded");
    expect((await stripe.paymentIntents.retrieve(failsLater.id)).status).toBe("requires_payment_method");
  });

  it("a token the test helper made carries no mandate: the create must send mandate_data", async () => {
    const stripe = emulator.stripe();
    const token = await sepaToken(stripe, "DE89370400440532013000");
    const error = await rejection(debit(stripe, token.id, { mandate_data: undefined }));
    expect(error).toMatchObject({ statusCode: 400, code: "parameter_missing", param: "mandate_data" });
    const partial = await rejection(
      debit(stripe, token.id, {
        mandate_data: { customer_acceptance: { type: "online", online: { ip_address: "203.0.113.7" } } },
      } as Partial<Stripe.PaymentIntentCreateParams>),
    );
    expect(partial).toMatchObject({ param: "mandate_data[customer_acceptance][online][user_agent]" });
    expect(await emulator.client().ledger()).toEqual([]);
  });

  it("refuses an IBAN outside Stripe's test table, and a debit the intent does not allow", async () => {
    const stripe = emulator.stripe();
    const unknown = await rejection(sepaToken(stripe, "FR1420041010050500013M02606"));
    expect(unknown).toMatchObject({ statusCode: 400, code: "invalid_bank_account_iban" });
    const token = await sepaToken(stripe, "DE89370400440532013000");
    const notAllowed = await rejection(debit(stripe, token.id, { allowed_payment_method_types: ["card"] }));
    expect(notAllowed).toMatchObject({ statusCode: 400, code: "payment_intent_incompatible_payment_method" });
    expect(await emulator.client().ledger()).toEqual([]);
  });

  it("the Payment Element's token carries the shopper's acceptance, so no mandate_data is needed", async () => {
    const res = await fetch(`${emulator.url()}/v1/confirmation_tokens`, {
      method: "POST",
      headers: { Authorization: "Bearer pk_test_emulator", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        "payment_method_data[type]": "sepa_debit",
        "payment_method_data[sepa_debit][iban]": "DE89370400440532013000",
        "payment_method_data[billing_details][name]": "Jenny Rosen",
        "payment_method_data[billing_details][email]": "jenny@example.com",
      }),
    });
    const token = (await res.json()) as Stripe.ConfirmationToken;
    expect(res.status).toBe(200);
    expect(token.mandate_data?.customer_acceptance.type).toBe("online");
    const intent = await debit(emulator.stripe(), token.id, { mandate_data: undefined });
    expect(intent.status).toBe("processing");
  });

  it("the clock refuses what is not a whole number of seconds", async () => {
    const res = await fetch(`${emulator.url()}/_emulator/clock`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ advanceSeconds: -5 }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("advanceSeconds");
  });
});
