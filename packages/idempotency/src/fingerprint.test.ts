import { describe, expect, it } from "vitest";
import { canonicalJson, fingerprint } from "./fingerprint";

const body = {
  items: [
    { sku: "a", quantity: 1, meta: { x: 1, y: [1, 2] } },
    { sku: "b", quantity: 2 },
  ],
  paymentMethod: "pm_card_visa",
};

describe("request fingerprints", () => {
  it("are equal for bodies that differ only in key order, at any depth", () => {
    const reordered = {
      paymentMethod: "pm_card_visa",
      items: [
        { meta: { y: [1, 2], x: 1 }, quantity: 1, sku: "a" },
        { quantity: 2, sku: "b" },
      ],
    };
    expect(fingerprint(reordered)).toBe(fingerprint(body));
    expect(canonicalJson(reordered)).toBe(canonicalJson(body));
  });

  it.each([
    ["a top-level value", { ...body, paymentMethod: "pm_card_chargeDeclined" }],
    ["a nested value", { ...body, items: [{ ...body.items[0], quantity: 2 }, body.items[1]] }],
    ["a deeply nested value", { ...body, items: [{ ...body.items[0], meta: { x: 1, y: [1, 3] } }, body.items[1]] }],
    ["array order", { ...body, items: [body.items[1], body.items[0]] }],
    ["a number's type", { ...body, items: [{ ...body.items[0], quantity: "1" }, body.items[1]] }],
    ["an added key", { ...body, coupon: "X" }],
  ])("differ when %s changes", (_, changed) => {
    expect(fingerprint(changed)).not.toBe(fingerprint(body));
  });

  it("is a SHA-256 hex digest", () => {
    expect(fingerprint(body)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is the SHA-256 of the canonical JSON, so stored records' fingerprints still match", () => {
    const cart = { paymentMethod: "pm_card_visa", items: [{ sku: "tee-classic", quantity: 1 }] };
    expect(canonicalJson(cart)).toBe('{"items":[{"quantity":1,"sku":"tee-classic"}],"paymentMethod":"pm_card_visa"}');
    // sha256sum of the line above, computed outside Node.
    expect(fingerprint(cart)).toBe("b137ecdd7b257bc083e4238a8d5ed2636699d4c7a071aeec0ab4e77a61015cc8");
  });
});
