import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { EmulatorClient, EmulatorRequestError } from "./client";
import { rejection, useEmulator, VISA } from "./test-support";

const emulator = useEmulator();

describe("restricted keys", () => {
  it("hold exactly the permissions they were minted with; the rest is Stripe's 403, a StripePermissionError", async () => {
    const { id, permissions } = await emulator.client().restrictedKey({ payment_intents: "write", refunds: "read" });
    expect(id).toMatch(/^rk_test_\w{24}$/);
    expect(permissions).toEqual({ payment_intents: "write", refunds: "read" });
    const stripe = emulator.stripe({ secretKey: id });

    const paid = await stripe.paymentIntents.create(VISA);
    expect(paid.status).toBe("succeeded");
    expect((await stripe.paymentIntents.retrieve(paid.id)).id).toBe(paid.id); // write includes read
    expect((await stripe.refunds.list({ payment_intent: paid.id })).data).toEqual([]);

    const before = await emulator.client().stat("forbidden");
    const refund = await rejection(stripe.refunds.create({ payment_intent: paid.id }));
    expect(refund).toBeInstanceOf(Stripe.errors.StripePermissionError);
    expect(refund).toMatchObject({ statusCode: 403, type: "StripePermissionError" });
    expect(refund.raw).toMatchObject({ type: "invalid_request_error" });
    expect(refund.message).toContain("does not have the required permissions for this endpoint");
    expect(refund.message).toContain("'refunds: write'");
    const events = await rejection(stripe.events.list({ limit: 1 }));
    expect(events).toBeInstanceOf(Stripe.errors.StripePermissionError);
    expect(events.message).toContain("'events: read'");
    expect(await emulator.client().stat("forbidden")).toBe(before + 2);
    // Nothing refused was executed: no refund at the secret key's view of the account.
    expect(await emulator.client().refunds(paid.id)).toEqual([]);
  });

  it("work on the account of the key that minted them", async () => {
    const own = emulator.client();
    const worker = new EmulatorClient(emulator.url(), { apiKey: "sk_test_restricted_owner" });
    await worker.reset();
    const { id } = await worker.restrictedKey({ payment_intents: "write" });
    const paid = await emulator.stripe({ secretKey: id }).paymentIntents.create(VISA);
    expect((await worker.ledger()).map((pi) => pi.id)).toEqual([paid.id]);
    expect((await own.ledger()).map((pi) => pi.id)).not.toContain(paid.id);
  });

  it("refuses an unknown resource or access in one line", async () => {
    const error = await emulator
      .client()
      .restrictedKey({ customers: "write" } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmulatorRequestError);
    expect((error as EmulatorRequestError).status).toBe(400);
    expect(JSON.stringify((error as EmulatorRequestError).body)).toContain("Unknown resource customers");
  });
});
