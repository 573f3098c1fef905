import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { attemptId } from "./attempt-id";
import { attemptMetadata, isAttemptIntentOf, judgeIntent, shopIdentity } from "./intent-ownership";
import { CHECKOUT_ENDPOINT } from "./request";

const SECRET = "9f3c1e7a5b2d48c6a0e4f7b19d3c5a8e2b6f0d4c7a1e9b3f5d8c2a6e0b4f7d1c";
const shop = shopIdentity("shop-a", [SECRET]);
const lines = [{ sku: "mug-enamel", quantity: 2, unitPriceCents: 1800 }];

function intentOf(identity = shop) {
  const customerId = randomUUID();
  const key = randomUUID();
  const orderId = attemptId({ subjectId: customerId, endpoint: CHECKOUT_ENDPOINT, key });
  const metadata = attemptMetadata(identity, {
    orderId,
    customerId,
    idempotencyKey: key,
    lines,
    amountCents: 3600,
    currency: "usd",
  });
  return { orderId, intent: { metadata, amount: 3600, currency: "usd" } };
}

describe("whose PaymentIntent this is", () => {
  it("is this shop's when its MAC verifies and its orderId is its customer's and key's attempt", () => {
    const { orderId, intent } = intentOf();
    expect(intent.metadata).toMatchObject({ shop: "shop-a", orderId, mac: expect.any(String) });
    expect(judgeIntent(shop, intent)).toMatchObject({ kind: "ours", orderId, lines });
    expect(isAttemptIntentOf(shop, orderId)(intent)).toBe(true);
    expect(isAttemptIntentOf(shop, randomUUID())(intent)).toBe(false);
  });

  it("is another shop's when it names another, or none; nobody's without an orderId", () => {
    const { intent } = intentOf(shopIdentity("shop-b", [SECRET]));
    expect(judgeIntent(shop, intent)).toEqual({ kind: "other_shop", shop: "shop-b" });
    const { shop: _shop, mac: _mac, ...unnamed } = intent.metadata;
    expect(judgeIntent(shop, { ...intent, metadata: unnamed })).toEqual({ kind: "other_shop", shop: null });
    expect(judgeIntent(shop, { ...intent, metadata: {} })).toEqual({ kind: "not_an_attempt" });
  });

  it.each([
    ["a price", (m: Record<string, string>) => ({ ...m, lines_1: m.lines_1!.replace("1800", "1") })],
    ["the customer", (m: Record<string, string>) => ({ ...m, customerId: randomUUID() })],
    ["the order id", (m: Record<string, string>) => ({ ...m, orderId: randomUUID() })],
    ["the MAC", (m: Record<string, string>) => ({ ...m, mac: `${m.mac!.slice(0, -2)}AA` })],
  ])("is tampered when %s was edited", (_, edit) => {
    const { intent } = intentOf();
    expect(judgeIntent(shop, { ...intent, metadata: edit(intent.metadata) })).toMatchObject({ kind: "tampered" });
  });

  it("is tampered when the amount or currency is not what was signed, or signed with another secret", () => {
    const { intent } = intentOf();
    expect(judgeIntent(shop, { ...intent, amount: 100 })).toMatchObject({ kind: "tampered" });
    expect(judgeIntent(shop, { ...intent, currency: "eur" })).toMatchObject({ kind: "tampered" });
    const forged = intentOf(shopIdentity("shop-a", ["another-secret-entirely-of-some-length-xx"]));
    expect(judgeIntent(shop, forged.intent)).toEqual({ kind: "tampered", reason: "the MAC does not verify" });
  });

  it("still reads what the secret before a rotation signed", () => {
    const { intent } = intentOf();
    const rotated = shopIdentity("shop-a", ["the-new-secret-after-rotation-0123456789", SECRET]);
    expect(judgeIntent(rotated, intent)).toMatchObject({ kind: "ours" });
  });
});
