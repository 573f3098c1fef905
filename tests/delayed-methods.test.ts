import { describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { useTestApp } from "./helpers/harness";
import { newKey, tokenCart, waitFor } from "./helpers/shopper";
import { deliverTo } from "./helpers/webhooks";

/**
 * Payments Stripe decides later (docs/contract.md §2, the 202 `processing`
 * answer): a SEPA debit is answered 202 processing, stored and replayed; the
 * order is processing until the emulator's clock reaches Stripe's answer and
 * its webhook marks the order paid or failed. A method the shop does not
 * enable is refused before Stripe. A database of its own: webhooks settle its
 * orders.
 */
const h = useTestApp(
  {
    PAYMENT_METHOD_TYPES: "card,sepa_debit",
    SHOP_CURRENCY: "eur", // Stripe takes SEPA Direct Debit in EUR only
    EVENTS_CATCH_UP_INTERVAL_MS: "0", // the webhooks alone settle these orders
    STRIPE_MAX_NETWORK_RETRIES: "0",
  },
  { ownDatabase: "delayed" },
);

const stripe = () =>
  createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url, maxNetworkRetries: 0 });

/** A SEPA debit's ConfirmationToken as the test helper makes it: no mandate of its own. */
async function sepaToken(iban: string): Promise<string> {
  const token = await stripe().testHelpers.confirmationTokens.create({
    payment_method_data: {
      type: "sepa_debit",
      sepa_debit: { iban },
      billing_details: { name: "Jenny Rosen", email: "jenny@example.com" },
    },
  });
  return token.id;
}

async function payBySepa(iban: string) {
  await deliverTo(h.emulator, h.url);
  const shopper = await h.shopper();
  const key = newKey();
  const body = { ...tokenCart(await sepaToken(iban)), paymentMethodType: "sepa_debit" };
  const first = await shopper.checkout(key, body);
  return { shopper, key, body, first };
}

// First in the file: no earlier test's webhooks or retrieves can reach the emulator while it counts.
describe("a method the shop does not enable", () => {
  it("is refused with 400 before anything reaches Stripe", async () => {
    const shopper = await h.shopper();
    const before = await h.emulator.stats();
    const refused = await shopper.checkout(newKey(), { ...tokenCart("ctoken_anything"), paymentMethodType: "ideal" });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: "invalid_request",
      issues: [expect.objectContaining({ path: ["paymentMethodType"] })],
    });
    const after = await h.emulator.stats();
    expect(after.requests).toBe(before.requests);
  });
});

/** A checkout of its own paid by a debit Stripe will fail later: 202 processing. */
async function checkoutPaidByFailingDebit() {
  await deliverTo(h.emulator, h.url);
  const shopper = await h.shopper();
  const made = await shopper.request("POST", "/api/checkouts", {
    body: { items: [{ sku: "tote-bag", quantity: 1 }] },
  });
  expect(made.status).toBe(201);
  const checkoutId = made.body.id as string;
  const debit = await shopper.checkout(newKey(), {
    checkoutId,
    confirmationToken: await sepaToken("DE62370400440532013001"),
    paymentMethodType: "sepa_debit",
  });
  expect(debit.status).toBe(202);
  return { shopper, checkoutId, debit };
}

describe("a SEPA debit", () => {
  it("is answered 202 processing (replayed), and is paid once the clock reaches Stripe's answer", async () => {
    const { shopper, key, body, first } = await payBySepa("DE89370400440532013000");
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: "processing", orderId: expect.any(String) });
    const orderId = first.body.orderId as string;
    const replay = await shopper.checkout(key, body);
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    expect((await shopper.order(orderId)).body.status).toBe("processing");

    const [intent] = await h.emulator.ledger();
    expect(intent).toMatchObject({
      status: "processing",
      currency: "eur",
      payment_method_types: ["card", "sepa_debit"],
    });

    expect((await h.emulator.advanceClock(60)).settled).toBe(1);
    const paid = await waitFor(
      "the webhook to mark the order paid",
      async () => {
        const order = await shopper.order(orderId);
        return order.body.status === "paid" ? order.body : null;
      },
      30_000,
    );
    expect(paid).toMatchObject({ status: "paid", paymentIntentId: intent!.id });
    expect(await h.emulator.ledger()).toHaveLength(1);
  });

  it("failing later marks the order failed", async () => {
    const { shopper, first } = await payBySepa("DE62370400440532013001");
    expect(first.status).toBe(202);
    const orderId = first.body.orderId as string;
    expect((await h.emulator.advanceClock(60)).settled).toBe(1);
    const failed = await waitFor(
      "the webhook to mark the order failed",
      async () => {
        const order = await shopper.order(orderId);
        return order.body.status === "failed" ? order.body : null;
      },
      30_000,
    );
    expect(failed).toMatchObject({ status: "failed" });
    // The shopper was told it was on its way: it stays in the history, failed, so they know to pay again.
    const history = (await shopper.orders()).body;
    expect(history.map((o) => [o.id, o.status])).toEqual([[orderId, "failed"]]);
  });

  it("failing later reopens its checkout: a card then pays it, one payment standing", async () => {
    const { shopper, checkoutId, debit } = await checkoutPaidByFailingDebit();
    // While the debit is on its way the checkout has its payment: another key is led to it.
    const early = await shopper.checkout(newKey(), { checkoutId, paymentMethod: "pm_card_visa" });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: "checkout_has_payment", status: "processing" });

    expect((await h.emulator.advanceClock(60)).settled).toBe(1);
    await waitFor(
      "the webhook to mark the debit failed",
      async () => ((await shopper.order(debit.body.orderId as string)).body.status === "failed" ? true : null),
      30_000,
    );
    const card = await shopper.checkout(newKey(), { checkoutId, paymentMethod: "pm_card_visa" });
    expect(card.status, JSON.stringify(card.body)).toBe(201);
    const intents = (await h.emulator.ledger()).filter((pi) => pi.metadata.customerId === shopper.customerId);
    expect(intents.map((pi) => pi.status).sort()).toEqual(["requires_payment_method", "succeeded"]);
  });

  it("failing later reopens its checkout even after a crash between the order's write and the checkout's", async () => {
    const { shopper, checkoutId, debit } = await checkoutPaidByFailingDebit();
    // The first write landed, the second never did: the order is failed, its record still holds the checkout.
    const orderId = debit.body.orderId as string;
    await h.db.failOrderOnly(orderId);
    expect(await h.db.holdsCheckout(orderId)).toBe(true);
    const held = await shopper.checkout(newKey(), { checkoutId, paymentMethod: "pm_card_visa" });
    expect(held.status).toBe(409);
    expect(held.body).toMatchObject({ error: "checkout_has_payment" });

    // Stripe's failure reaches the shop: the checkout lets go, and a card pays it.
    expect((await h.emulator.advanceClock(60)).settled).toBe(1);
    await waitFor(
      "the webhook to reopen the checkout",
      async () => ((await h.db.holdsCheckout(orderId)) ? null : true),
      30_000,
    );
    const card = await shopper.checkout(newKey(), { checkoutId, paymentMethod: "pm_card_visa" });
    expect(card.status, JSON.stringify(card.body)).toBe(201);
    const intents = (await h.emulator.ledger()).filter((pi) => pi.metadata.customerId === shopper.customerId);
    expect(intents.map((pi) => pi.status).sort()).toEqual(["requires_payment_method", "succeeded"]);
  });
});
