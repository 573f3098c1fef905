import { describe, expect, it } from "vitest";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { useTestApp } from "./helpers/harness";
import { newKey, tokenCart, waitFor } from "./helpers/shopper";

/**
 * A SEPA debit decided at Stripe while the shop receives no webhook at all:
 * the events catch-up reads the decision back and the order is paid, long
 * after the attempt's key finished. A database of its own: the maintenance
 * loop settles whatever it finds.
 */
const h = useTestApp(
  {
    PAYMENT_METHOD_TYPES: "card,sepa_debit",
    SHOP_CURRENCY: "eur", // Stripe takes SEPA Direct Debit in EUR only
    MAINTENANCE_INTERVAL_MS: "300",
    EVENTS_CATCH_UP_INTERVAL_MS: "300",
  },
  { ownDatabase: "delayedcatchup" },
);

describe("a SEPA debit without webhooks", () => {
  it("is paid once the events catch-up reads Stripe's decision", async () => {
    expect((await h.emulator.webhookSnapshot()).url).toBeNull();
    const stripe = createStripeClient({ secretKey: h.app.emulator.apiKey, apiBase: h.app.emulator.url });
    const token = await stripe.testHelpers.confirmationTokens.create({
      payment_method_data: { type: "sepa_debit", sepa_debit: { iban: "DE89370400440532013000" } },
    });
    const shopper = await h.shopper();
    const first = await shopper.checkout(newKey(), { ...tokenCart(token.id), paymentMethodType: "sepa_debit" });
    expect(first.status).toBe(202);
    const orderId = first.body.orderId as string;
    expect((await shopper.order(orderId)).body.status).toBe("processing");

    expect((await h.emulator.advanceClock(60)).settled).toBe(1);
    await waitFor(
      "the events catch-up to mark the order paid",
      async () => (await shopper.order(orderId)).body.status === "paid",
      30_000,
    );
    expect(await h.emulator.webhookStat("delivered")).toBe(0);
    expect(await h.emulator.ledger()).toHaveLength(1);
  });
});
