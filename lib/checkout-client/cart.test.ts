import { describe, expect, it } from "vitest";
import { countItems, parseCart, sameItems, withAdded, withoutPaid, withQuantity } from "./cart";

describe("cart", () => {
  it("adds, updates and removes lines by SKU", () => {
    let items = withQuantity([], "tee", 1);
    items = withQuantity(items, "mug", 2);
    items = withQuantity(items, "tee", 3);
    expect(items).toEqual([
      { sku: "tee", quantity: 3 },
      { sku: "mug", quantity: 2 },
    ]);
    expect(countItems(items)).toBe(5);
    expect(withQuantity(items, "tee", 0)).toEqual([{ sku: "mug", quantity: 2 }]);
  });

  it("keeps quantities within what the server accepts (1..99)", () => {
    expect(withQuantity([], "tee", 500)).toEqual([{ sku: "tee", quantity: 99 }]);
    expect(withQuantity([{ sku: "tee", quantity: 2 }], "tee", -1)).toEqual([]);
    expect(withQuantity([], "tee", Number.NaN)).toEqual([]);
  });

  it("reads back only well-formed lines", () => {
    expect(
      parseCart('[{"sku":"tee","quantity":2},{"sku":1},{"sku":"mug","quantity":1.5},{"sku":"tee","quantity":4}]'),
    ).toEqual([{ sku: "tee", quantity: 4 }]);
    expect(parseCart("nope")).toEqual([]);
    expect(parseCart('{"sku":"tee"}')).toEqual([]);
  });

  it("removes what was paid for and keeps what was added during the payment", () => {
    const cart = [
      { sku: "tee", quantity: 3 },
      { sku: "mug", quantity: 1 },
      { sku: "cap", quantity: 1 },
    ];
    expect(
      withoutPaid(cart, [
        { sku: "tee", quantity: 2 },
        { sku: "mug", quantity: 1 },
      ]),
    ).toEqual([
      { sku: "tee", quantity: 1 },
      { sku: "cap", quantity: 1 },
    ]);
  });

  it("puts an order's lines back on top of what the cart holds, dropping nothing", () => {
    const cart = [
      { sku: "tee", quantity: 1 },
      { sku: "cap", quantity: 2 },
    ];
    expect(
      withAdded(cart, [
        { sku: "mug", quantity: 1 },
        { sku: "tee", quantity: 2 },
      ]),
    ).toEqual([
      { sku: "tee", quantity: 3 },
      { sku: "cap", quantity: 2 },
      { sku: "mug", quantity: 1 },
    ]);
    expect(
      withAdded(
        [],
        [
          { sku: "mug", quantity: 98 },
          { sku: "mug", quantity: 5 },
        ],
      ),
    ).toEqual([{ sku: "mug", quantity: 99 }]);
  });

  it("compares carts by content, not order", () => {
    expect(
      sameItems(
        [
          { sku: "a", quantity: 1 },
          { sku: "b", quantity: 2 },
        ],
        [
          { sku: "b", quantity: 2 },
          { sku: "a", quantity: 1 },
        ],
      ),
    ).toBe(true);
    expect(sameItems([{ sku: "a", quantity: 1 }], [{ sku: "a", quantity: 2 }])).toBe(false);
    expect(
      sameItems(
        [{ sku: "a", quantity: 1 }],
        [
          { sku: "a", quantity: 1 },
          { sku: "b", quantity: 1 },
        ],
      ),
    ).toBe(false);
  });
});
