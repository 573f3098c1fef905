import { describe, expect, it } from "vitest";
import { startStripeEmulator } from "@checkout/stripe-emulator";
import { linesMetadata, linesOf, type MetadataLine } from "./attempt-intent";
import { createStripeClient } from "./stripe-client";

describe("the order lines in a PaymentIntent's metadata", () => {
  const lines: MetadataLine[] = [
    { sku: "tee-classic", quantity: 2, unitPriceCents: 2500 },
    { sku: "mug-enamel", quantity: 1, unitPriceCents: 1800 },
  ];

  it("read back as they were written, in SKU order whatever the cart's order", () => {
    const metadata = linesMetadata(lines);
    expect(metadata).toEqual(linesMetadata([...lines].reverse()));
    expect(linesOf(metadata)).toEqual([lines[1], lines[0]]);
  });

  it("fit Stripe's limits for the largest cart: values of 500 characters, keys of 40, 50 keys in all", () => {
    const largest = Array.from({ length: 50 }, (_, i) => ({
      sku: `${String(i).padStart(2, "0")}${"x".repeat(62)}`,
      quantity: 99,
      unitPriceCents: 99_999_999,
    }));
    const metadata = linesMetadata(largest);
    const entries = Object.entries(metadata);
    expect(entries.length).toBeGreaterThan(1);
    // Three more keys name the attempt: orderId, customerId, idempotencyKey.
    expect(entries.length + 3).toBeLessThanOrEqual(50);
    for (const [key, value] of entries) {
      expect(key.length).toBeLessThanOrEqual(40);
      expect(value.length).toBeLessThanOrEqual(500);
    }
    expect(linesOf(metadata)).toEqual(largest);
  });

  it("cut a non-ASCII SKU between characters, never inside one; Stripe stores and gives back every piece", async () => {
    // "☕" is one UTF-16 unit, "🫖" two (a surrogate pair): cut by index, a piece can end in half a character.
    // The first SKU's padding is chosen so that the 500th unit is the first half of a pair.
    const cartWith = (pad: number) =>
      Array.from({ length: 20 }, (_, i) => ({
        sku: `${i === 0 ? "a".repeat(pad) : ""}thé-${String(i).padStart(2, "0")}-☕🫖🫖🫖`,
        quantity: 1,
        unitPriceCents: 450,
      }));
    const json = (l: MetadataLine[]) =>
      JSON.stringify([...l].sort((a, b) => (a.sku < b.sku ? -1 : 1)).map((x) => [x.sku, x.quantity, x.unitPriceCents]));
    const pad = Array.from({ length: 30 }, (_, p) => p).find((p) => !json(cartWith(p)).slice(0, 500).isWellFormed());
    expect(pad).toBeDefined();
    const lines = cartWith(pad!);
    expect(json(lines).length).toBeGreaterThan(500);
    const metadata = linesMetadata(lines);
    for (const value of Object.values(metadata)) {
      expect(value.isWellFormed()).toBe(true);
      expect(value.length).toBeLessThanOrEqual(500);
    }
    const emulator = await startStripeEmulator({ port: 0 });
    try {
      const stripe = createStripeClient({ secretKey: "sk_test_metadata", apiBase: emulator.url, maxNetworkRetries: 0 });
      const intent = await stripe.paymentIntents.create({ amount: 5_400, currency: "usd", metadata });
      expect(intent.metadata).toEqual(metadata);
      expect(linesOf(intent.metadata)).toEqual([...lines].sort((a, b) => (a.sku < b.sku ? -1 : 1)));
    } finally {
      await emulator.close();
    }
  });

  it("are null when missing or malformed, never a guess", () => {
    expect(linesOf({})).toBeNull();
    expect(linesOf({ lines_1: "not json" })).toBeNull();
    expect(linesOf({ lines_1: "[]" })).toBeNull();
    expect(linesOf({ lines_1: '[["tee-classic",0,2500]]' })).toBeNull();
    expect(linesOf({ lines_1: '[["tee-classic","2",2500]]' })).toBeNull();
    // A value lost from the middle leaves the JSON cut short.
    const cut = linesMetadata(
      Array.from({ length: 20 }, (_, i) => ({ sku: `sku-${i}-${"y".repeat(40)}`, quantity: 1, unitPriceCents: 1 })),
    );
    expect(Object.keys(cut).length).toBeGreaterThan(2);
    delete cut.lines_2;
    expect(linesOf(cut)).toBeNull();
  });
});
