import { describe, expect, it } from "vitest";
import { canonicalJson, parseForm } from "./form";

describe("parseForm", () => {
  it("builds nested objects and arrays from bracket notation, as stripe-node encodes them", () => {
    const result = parseForm(
      "amount=100&metadata%5BorderId%5D=o%201&expand%5B0%5D=a&expand%5B1%5D=b&tags%5B%5D=x&tags%5B%5D=y",
    );
    expect(result).toEqual({
      ok: true,
      params: { amount: "100", metadata: { orderId: "o 1" }, expand: ["a", "b"], tags: ["x", "y"] },
    });
  });

  it.each([
    ["a=1&a=2", /Duplicate/],
    ["a=1&a[b]=2", /Conflicting/],
    ["a[b=1", /Invalid parameter name/],
    ["__proto__[polluted]=1", /unknown parameter/],
    ["toString[x]=1&constructor=2", /unknown parameter/],
  ])("rejects %s", (body, message) => {
    const result = parseForm(body);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("reads own keys only, so `toString[x]` does not collide with Object.prototype", () => {
    expect(parseForm("toString[x]=1")).toEqual({ ok: true, params: { toString: { x: "1" } } });
  });
});

describe("canonicalJson", () => {
  it("ignores key order at every depth but keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: "x" } })).toBe(canonicalJson({ a: { c: "x", d: [2, 1] }, b: 1 }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});
