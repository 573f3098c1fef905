import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { drivePayment, type PaymentRequest } from "./drive";
import { createStripeClient } from "./stripe-client";

const KEY = "sk_test_drive_key_in_use";
let emulator: StripeEmulator;
let control: EmulatorClient;
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
  control = new EmulatorClient(emulator.url, { apiKey: KEY });
  await control.reset();
});
afterAll(async () => {
  await emulator.close();
});

const alwaysOwner = { refresh: async () => true };

function payment(attemptId: string): PaymentRequest {
  return {
    attemptId,
    attempt: 1,
    amountCents: 1800,
    currency: "usd",
    paymentMethod: "pm_card_visa",
    paymentIntentId: null,
    metadata: { orderId: attemptId, customerId: randomUUID(), idempotencyKey: randomUUID() },
    returnUrl: "http://127.0.0.1:3000/checkout/return?key=k",
    since: new Date(),
    accepts: (intent) => intent.metadata.orderId === attemptId,
  };
}

describe("a create whose key is still in use at Stripe (409 idempotency_key_in_use)", () => {
  it("looks for the attempt's intent instead of failing, and the first request's answer is replayed later", async () => {
    // stripe-node retries a 409 itself; with no retries the second owner sees it.
    const stripe = createStripeClient({ secretKey: KEY, apiBase: emulator.url, maxNetworkRetries: 0 });
    const request = payment(randomUUID());
    await control.faults({ gate: true });
    const first = drivePayment(stripe, request, alwaysOwner);
    await control.held(1); // the first create holds the key, executing nothing yet

    const second = await drivePayment(stripe, { ...request, attempt: 2 }, alwaysOwner);
    expect(second).toMatchObject({ kind: "unknown", paymentIntentId: null });
    expect(second.kind === "unknown" && second.reason).toMatch(/409 idempotency_key_in_use.*not found yet/);

    await control.faults({ gate: false });
    expect(await first).toMatchObject({ kind: "succeeded" });
    const third = await drivePayment(stripe, { ...request, attempt: 3 }, alwaysOwner);
    expect(third).toMatchObject({ kind: "succeeded" });
    expect(await control.stat("charges")).toBe(1);
  });
});
