import { expect, it } from "vitest";
import { priceLines } from "./price-lines";

const products = [
  { sku: "tee", name: "Classic Tee", priceCents: 2500, currency: "usd" },
  { sku: "mug", name: "Enamel Mug", priceCents: 1800, currency: "usd" },
];

it("prices the cart with the server's catalogue and drops products that no longer exist", () => {
  const priced = priceLines(
    [
      { sku: "tee", quantity: 2 },
      { sku: "gone", quantity: 1 },
      { sku: "mug", quantity: 1 },
    ],
    products,
  );
  expect(priced.lines.map((l) => [l.sku, l.lineCents])).toEqual([
    ["tee", 5000],
    ["mug", 1800],
  ]);
  expect(priced.totalCents).toBe(6800);
  expect(priced.currency).toBe("usd");
});
