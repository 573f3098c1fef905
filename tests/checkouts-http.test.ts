import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { CART, CART_TOTAL_CENTS, newKey, Shopper } from "./helpers/shopper";

/**
 * The checkout on the server over real HTTP (docs/contract.md, "Checkouts";
 * docs/decisions/0027-one-payment-per-checkout.md): priced by the shop, read
 * only by its customer, paid at most once however many keys ask — the
 * emulator's ledger counts what reached the provider.
 */
const h = useTestApp();

async function openCheckout(shopper: Shopper, items = CART) {
  const answer = await shopper.request("POST", "/api/checkouts", { body: { items } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body as { id: string; amountCents: number; currency: string; status: string };
}

const pay = (shopper: Shopper, checkoutId: string, paymentMethod = "pm_card_visa", key = newKey()) =>
  shopper.checkout(key, { checkoutId, paymentMethod });

describe("a checkout on the server", () => {
  it("is priced by the shop and read back, with its attempts, by its customer only", async () => {
    const shopper = await Shopper.arrive(h.url);
    const created = await shopper.request("POST", "/api/checkouts", { body: { items: CART } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      amountCents: CART_TOTAL_CENTS,
      currency: "usd",
      status: "open",
      lines: expect.arrayContaining([expect.objectContaining({ sku: CART[0]!.sku, quantity: CART[0]!.quantity })]),
    });
    const read = await shopper.request("GET", `/api/checkouts/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...created.body, attempts: [] });

    const stranger = await Shopper.arrive(h.url);
    expect((await stranger.request("GET", `/api/checkouts/${created.body.id}`)).status).toBe(404);
    expect((await shopper.request("GET", `/api/checkouts/${newKey()}`)).status).toBe(404);
    expect((await shopper.request("GET", "/api/checkouts/not-a-uuid")).status).toBe(404);
  });

  it("refuses a cart with an unknown product, writing nothing", async () => {
    const shopper = await Shopper.arrive(h.url);
    const answer = await shopper.request("POST", "/api/checkouts", {
      body: { items: [{ sku: "no-such-thing", quantity: 1 }] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_request" });
  });

  it("answers 404 for another shopper's checkout and an unknown one, and never reaches the provider", async () => {
    const owner = await Shopper.arrive(h.url);
    const checkout = await openCheckout(owner);
    const stranger = await Shopper.arrive(h.url);
    const theirs = await pay(stranger, checkout.id);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ error: "not_found" });
    const unknown = await pay(owner, newKey());
    expect(unknown.status).toBe(404);
    expect(await h.emulator.ledger()).toEqual([]);
    // Refused before anything was stored: the owner's checkout is still open.
    expect((await owner.request("GET", `/api/checkouts/${checkout.id}`)).body.status).toBe("open");
  });

  it("takes one payment of 20 fresh keys at once; the others are led to it", async () => {
    const shopper = await Shopper.arrive(h.url);
    const checkout = await openCheckout(shopper);
    const answers = await Promise.all(Array.from({ length: 20 }, () => pay(shopper, checkout.id)));
    const paid = answers.filter((a) => a.status === 201);
    const led = answers.filter((a) => a.status === 409 && a.body.error === "checkout_has_payment");
    expect(paid, JSON.stringify(answers.map((a) => [a.status, a.body]))).toHaveLength(1);
    expect(led).toHaveLength(19);
    const ledger = await h.emulator.ledger();
    expect(ledger.map((pi) => pi.status)).toEqual(["succeeded"]);
    expect(paid[0]!.body.paymentIntentId).toBe(ledger[0]!.id);
    // Every other key is told which attempt holds the payment: the winner's.
    const read = await shopper.request("GET", `/api/checkouts/${checkout.id}`);
    expect(read.body.status).toBe("paid");
    expect(read.body.attempts).toHaveLength(1);
    for (const answer of led) {
      expect(answer.body.key).toBe(read.body.attempts[0].key);
      expect(["in_progress", "succeeded"]).toContain(answer.body.status);
    }
  });

  it("answers a fresh key for a paid checkout with the payment, never reaching the provider", async () => {
    const shopper = await Shopper.arrive(h.url);
    const checkout = await openCheckout(shopper);
    const firstKey = newKey();
    expect((await pay(shopper, checkout.id, "pm_card_visa", firstKey)).status).toBe(201);
    expect(await h.emulator.ledger()).toHaveLength(1);

    // Another tab, another device: a new key, a new card.
    const again = await pay(shopper, checkout.id, "pm_card_mastercard");
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: "checkout_has_payment", status: "succeeded", key: firstKey });
    expect(await h.emulator.ledger()).toHaveLength(1);

    // Its lines no longer change; the checkout reads as paid, with its one attempt.
    const change = await shopper.request("PUT", `/api/checkouts/${checkout.id}`, {
      body: { items: [{ sku: CART[0]!.sku, quantity: 1 }] },
    });
    expect(change.status).toBe(409);
    expect(change.body).toMatchObject({ error: "checkout_has_payment", key: firstKey });
    const read = await shopper.request("GET", `/api/checkouts/${checkout.id}`);
    expect(read.body).toMatchObject({ status: "paid", amountCents: CART_TOTAL_CENTS });
    expect(read.body.attempts.map((a: { key: string; status: string }) => [a.key, a.status])).toEqual([
      [firstKey, "paid"],
    ]);
  });

  it("changes its lines while nothing is live, and is priced anew", async () => {
    const shopper = await Shopper.arrive(h.url);
    const checkout = await openCheckout(shopper);
    const one = [{ sku: CART[0]!.sku, quantity: 1 }];
    const changed = await shopper.request("PUT", `/api/checkouts/${checkout.id}`, { body: { items: one } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: checkout.id, status: "open", lines: [expect.objectContaining(one[0])] });
    expect(changed.body.amountCents).toBeLessThan(checkout.amountCents);
    const paid = await pay(shopper, checkout.id);
    expect(paid.status).toBe(201);
    expect(paid.body.amountCents).toBe(changed.body.amountCents);
    expect((await h.emulator.ledger()).map((pi) => pi.amount)).toEqual([changed.body.amountCents]);
    const stranger = await Shopper.arrive(h.url);
    expect((await stranger.request("PUT", `/api/checkouts/${checkout.id}`, { body: { items: one } })).status).toBe(404);
  });

  it("can be paid again after its payment was declined: one order, two attempts", async () => {
    const shopper = await Shopper.arrive(h.url);
    const checkout = await openCheckout(shopper);
    const declined = await pay(shopper, checkout.id, "pm_card_chargeDeclined");
    expect(declined.status).toBe(402);
    expect((await shopper.request("GET", `/api/checkouts/${checkout.id}`)).body.status).toBe("open");
    const paid = await pay(shopper, checkout.id);
    expect(paid.status).toBe(201);
    const ledger = await h.emulator.ledger();
    expect(ledger.filter((pi) => pi.status === "succeeded")).toHaveLength(1);
    const read = await shopper.request("GET", `/api/checkouts/${checkout.id}`);
    expect(read.body.status).toBe("paid");
    expect(read.body.attempts.map((a: { status: string }) => a.status)).toEqual(["failed", "paid"]);
    // The history: one order, the paid one; the declined attempt is inside it, not an order of its own.
    const orders = (await shopper.request("GET", "/api/orders")).body as Array<{ id: string; status: string }>;
    expect(orders.map((o) => [o.id, o.status])).toEqual([[paid.body.orderId, "paid"]]);
  });

  it("declined twice and never paid: no order in the history; each attempt readable by id, both inside", async () => {
    const shopper = await Shopper.arrive(h.url);
    const checkout = await openCheckout(shopper);
    const first = await pay(shopper, checkout.id, "pm_card_chargeDeclined");
    const second = await pay(shopper, checkout.id, "pm_card_chargeDeclinedInsufficientFunds");
    expect([first.status, second.status]).toEqual([402, 402]);
    expect((await h.emulator.ledger()).filter((pi) => pi.status === "succeeded")).toEqual([]);
    expect((await shopper.request("GET", "/api/orders")).body).toEqual([]);
    const read = await shopper.request("GET", `/api/orders/${second.body.orderId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ status: "failed", checkoutId: checkout.id });
    expect(read.body.attempts.map((a: { orderId: string; status: string }) => [a.orderId, a.status])).toEqual([
      [first.body.orderId, "failed"],
      [second.body.orderId, "failed"],
    ]);
  });
});
