import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { useEmulator, VISA } from "./test-support";

// Stripe answers an expandable field as its object when the request names it
// in `expand` (stripe-node: PaymentIntent.payment_method is
// `string | Stripe.PaymentMethod | null`), on any call that returns the intent.
const emulator = useEmulator();

const cardOf = (intent: Stripe.PaymentIntent) => (intent.payment_method as Stripe.PaymentMethod).card;

describe("expand payment_method on a PaymentIntent", () => {
  it("answers the PaymentMethod object on create, replay and retrieve, and the id without expand", async () => {
    const stripe = emulator.stripe();
    const params = { ...VISA, payment_method: "pm_card_mastercard", expand: ["payment_method"] };
    const created = await stripe.paymentIntents.create(params, { idempotencyKey: "expand-create" });
    expect(created.status).toBe("succeeded");
    expect(cardOf(created)).toMatchObject({ brand: "mastercard", last4: "4444" });
    const pmId = (created.payment_method as Stripe.PaymentMethod).id;
    expect(pmId).toMatch(/^pm_/);

    const replayed = await stripe.paymentIntents.create(params, { idempotencyKey: "expand-create" });
    expect(replayed.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(cardOf(replayed)).toMatchObject({ brand: "mastercard", last4: "4444" });

    const plain = await stripe.paymentIntents.retrieve(created.id);
    expect(plain.payment_method).toBe(pmId);
    const retrieved = await stripe.paymentIntents.retrieve(created.id, { expand: ["payment_method"] });
    expect(cardOf(retrieved)).toMatchObject({ brand: "mastercard", last4: "4444" });
  });

  it("keeps the receipt_email the create named", async () => {
    const intent = await emulator.stripe().paymentIntents.create({ ...VISA, receipt_email: "jo@example.com" });
    expect(intent.receipt_email).toBe("jo@example.com");
    expect((await emulator.stripe().paymentIntents.retrieve(intent.id)).receipt_email).toBe("jo@example.com");
  });
});
