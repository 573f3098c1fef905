import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { attemptId } from "./attempt-id";
import {
  attemptMetadata,
  claimsThisShop,
  isAttemptIntentOf,
  judgeIntent,
  labMetadata,
  shopIdentity,
} from "./intent-ownership";
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

  it("is its lab's, no alarm, when the lab signed it; a lab marker it did not sign is forged", () => {
    const orderId = randomUUID();
    const customerId = randomUUID();
    const claim = { orderId, customerId, lane: "naive", amountCents: 2500, currency: "usd" };
    const metadata: Record<string, string> = { ...labMetadata(shop, claim), labRun: randomUUID() };
    const lab = { metadata, amount: 2500, currency: "usd" };
    expect(lab.metadata).toMatchObject({ shop: "shop-a", orderId, lane: "naive", mac: expect.any(String) });
    expect(judgeIntent(shop, lab)).toEqual({ kind: "lab", orderId });
    expect(claimsThisShop(shop, lab)).toBe(true); // the audit still accounts for the lab's charges
    expect(isAttemptIntentOf(shop, orderId)(lab)).toBe(false);
    const keyed = { ...lab, metadata: labMetadata(shop, { ...claim, idempotencyKey: randomUUID() }) };
    expect(judgeIntent(shop, keyed)).toEqual({ kind: "lab", orderId });

    const forged = (metadata: Record<string, string>, amount = 2500) =>
      judgeIntent(shop, { metadata, amount, currency: "usd" });
    const { mac: _mac, ...unsigned } = lab.metadata;
    expect(forged(unsigned)).toEqual({ kind: "tampered", reason: "no MAC" });
    expect(forged(lab.metadata, 100)).toEqual({ kind: "tampered", reason: "its lab MAC does not verify" });
    expect(forged({ ...lab.metadata, customerId: randomUUID() })).toMatchObject({ kind: "tampered" });
    expect(forged(labMetadata(shopIdentity("shop-a", ["another-secret-entirely-of-some-length-xx"]), claim))).toEqual({
      kind: "tampered",
      reason: "its lab MAC does not verify",
    });
    // Neither form passes for the other: an attempt's MAC under a lab marker, the lab's without one.
    const { intent } = intentOf();
    expect(forged({ ...intent.metadata, lane: "naive" }, 3600)).toMatchObject({ kind: "tampered" });
    const { lane: _lane, ...unmarked } = lab.metadata;
    expect(forged(unmarked)).toMatchObject({ kind: "tampered" });
  });
});
