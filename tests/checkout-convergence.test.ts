import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { cart, newKey } from "./helpers/shopper";

/**
 * Convergence over real HTTP (docs/contract.md, "Convergence"): a replay is
 * the stored answer byte for byte and does not depend on today's catalogue.
 */
const h = useTestApp();

describe("a replay", () => {
  it("is the first answer's exact bytes, not a re-serialisation", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const first = await rawCheckout(shopper.cookie!, key, cart());
    const replay = await rawCheckout(shopper.cookie!, key, cart());
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // jsonb would have reordered the keys (shortest first): the bytes prove the body was not rebuilt.
    expect(replay.text).toBe(first.text);
    expect(Object.keys(JSON.parse(replay.text))).toEqual([
      "orderId",
      "status",
      "amountCents",
      "currency",
      "paymentIntentId",
    ]);
    expect(replay.headers.get("location")).toBe(first.headers.get("location"));
    expect(replay.headers.get("content-type")).toBe("application/json");
    expect((await h.emulator.stats()).charges).toBe(1);
  });

  it("of a paid attempt still answers 201 after its product left the catalogue", async () => {
    const sku = `retiring-${newKey().slice(0, 8)}`;
    await h.db.addProduct(sku, 1234);
    const shopper = await h.shopper();
    const key = newKey();
    const body = cart("pm_card_visa", [{ sku, quantity: 1 }]);
    const paid = await shopper.checkout(key, body);
    expect(paid.status).toBe(201);
    expect(paid.body.amountCents).toBe(1234);

    await h.db.retireProduct(sku);
    const freshKey = newKey();
    const fresh = await shopper.checkout(freshKey, body);
    expect(fresh.status).toBe(400); // the product really is gone for a new attempt
    expect(await h.db.record(shopper.customerId!, freshKey)).toBeNull();

    const replay = await shopper.checkout(key, body);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(paid.body);
    expect(await h.emulator.ledger()).toHaveLength(1);
  });

  it("leaves nothing behind when pricing fails after the claim", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    const answer = await shopper.checkout(key, cart("pm_card_visa", [{ sku: "no-such-product", quantity: 1 }]));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_request");
    expect(await h.db.record(shopper.customerId!, key)).toBeNull();
    expect(await h.emulator.ledger()).toEqual([]);
  });
});

async function rawCheckout(cookie: string, key: string, body: unknown) {
  const res = await fetch(new URL("/api/checkout", h.url), {
    method: "POST",
    headers: { cookie, "idempotency-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
