import { describe, expect, it } from "vitest";
import type { LedgerIntent, LedgerRefund } from "./checker/evidence";
import { checkCrossShop, onlyShop, withoutShop, type CrossShopEvidence, type CrossShopKind } from "./cross-shop";
import { describeWrite } from "./provider-recorder";

/**
 * The second shop's check, fed crafted evidence: consistent evidence is clean,
 * and each way one shop can act on the other's intents is reported as exactly
 * that finding. (The soak runs it for real with `--second-shop`.)
 */
const intent = (id: string, shop: string | null, status = "succeeded", orderId = `order-${id}`): LedgerIntent => ({
  id,
  status,
  amount: 2500,
  metadata: shop === null ? {} : { shop, orderId },
});
const refund = (id: string, paymentIntent: string): LedgerRefund => ({
  id,
  payment_intent: paymentIntent,
  amount: 2500,
  status: "succeeded",
  reason: null,
  metadata: {},
});

/** Each shop paid one and cancelled one of its own; the second refunded a late success of its own. */
function clean(): CrossShopEvidence {
  return {
    soak: {
      shopId: "soak",
      orders: [
        { id: "order-pi_a1", paymentIntentId: "pi_a1" },
        { id: "order-pi_a2", paymentIntentId: "pi_a2" },
      ],
      foreignIntentsSeen: 4,
    },
    second: {
      shopId: "second",
      orders: [
        { id: "order-pi_b1", paymentIntentId: "pi_b1" },
        { id: "order-pi_b2", paymentIntentId: "pi_b2" },
        { id: "order-pi_b3", paymentIntentId: "pi_b3" },
      ],
      foreignIntentsSeen: 3,
    },
    intents: [
      intent("pi_a1", "soak"),
      intent("pi_a2", "soak", "canceled"),
      intent("pi_b1", "second"),
      intent("pi_b2", "second", "canceled"),
      intent("pi_b3", "second"),
    ],
    refunds: [refund("re_b3", "pi_b3")],
    secondShopWrites: [
      describeWrite("POST", "/v1/payment_intents", "amount=2500&currency=usd"),
      describeWrite("POST", "/v1/payment_intents/pi_b1/confirm", ""),
      describeWrite("POST", "/v1/payment_intents/pi_b2/cancel", "cancellation_reason=abandoned"),
      describeWrite("POST", "/v1/refunds", "payment_intent=pi_b3"),
    ],
  };
}

function only(evidence: CrossShopEvidence): Partial<Record<CrossShopKind, number>> {
  return Object.fromEntries(Object.entries(checkCrossShop(evidence).counts).filter(([, n]) => n > 0));
}

describe("the cross-shop check", () => {
  it("finds nothing wrong with two shops that each kept to their own, and counts the second's", () => {
    const verdict = checkCrossShop(clean());
    expect(verdict.findings).toEqual([]);
    expect(verdict.figures).toEqual({
      secondShopIntents: 3,
      secondShopPayments: 1,
      secondShopRefunds: 1,
      secondShopCancellations: 1,
      soakIntents: 2,
      foreignIntentsSeen: { soak: 4, second: 3 },
    });
  });

  it("catches the second shop's intent refunded or cancelled by the soak's shop", () => {
    const refunded = clean();
    refunded.refunds.push(refund("re_b1", "pi_b1"));
    expect(only(refunded)).toEqual({ refunded_by_the_other_shop: 1 });
    expect(checkCrossShop(refunded).findings[0]).toMatchObject({ subject: "pi_b1" });

    const canceled = clean();
    canceled.intents.push(intent("pi_b4", "second", "canceled"));
    expect(only(canceled)).toEqual({ canceled_by_the_other_shop: 1 });
  });

  it("catches the second shop refunding, cancelling or confirming the soak's intents, or untagged ones", () => {
    const e = clean();
    e.intents.push(intent("pi_naive", null));
    e.secondShopWrites.push(
      describeWrite("POST", "/v1/refunds", "payment_intent=pi_a1"),
      describeWrite("POST", "/v1/payment_intents/pi_a2/cancel", ""),
      describeWrite("POST", "/v1/payment_intents/pi_naive", "metadata[x]=y"),
    );
    expect(only(e)).toEqual({ wrote_to_the_other_shops_intent: 3 });
    expect(checkCrossShop(e).findings.map((f) => f.subject)).toEqual(["pi_a1", "pi_a2", "pi_naive"]);
  });

  it("catches an order of the other shop's intent in either database, by the intent or by its attempt's id", () => {
    const restored = clean();
    restored.soak.orders.push({ id: "ORDER-PI_B1", paymentIntentId: null }); // restored under its attempt's id
    expect(only(restored)).toEqual({ order_of_the_other_shops_intent: 1 });

    const adopted = clean();
    adopted.second.orders.push({ id: "some-order", paymentIntentId: "pi_a1" });
    expect(only(adopted)).toEqual({ order_of_the_other_shops_intent: 1 });
    expect(checkCrossShop(adopted).findings[0]!.evidence).toContain("names soak");
  });

  it("fails a run in which either shop never saw the other's intents", () => {
    const e = clean();
    e.second.foreignIntentsSeen = 0;
    expect(only(e)).toEqual({ never_saw_the_other_shop: 1 });
  });

  it("splits the ledger: each shop's checker judges its own intents and their refunds", () => {
    const { intents, refunds } = clean();
    const soak = withoutShop({ intents, refunds }, "second");
    expect(soak.intents.map((pi) => pi.id)).toEqual(["pi_a1", "pi_a2"]);
    expect(soak.refunds).toEqual([]);
    const second = onlyShop({ intents, refunds }, "second");
    expect(second.intents.map((pi) => pi.id)).toEqual(["pi_b1", "pi_b2", "pi_b3"]);
    expect(second.refunds.map((r) => r.id)).toEqual(["re_b3"]);
  });

  it("reads which intent a provider write names", () => {
    expect(describeWrite("POST", "/v1/payment_intents/pi_1/cancel?x=1", "")).toEqual({
      method: "POST",
      path: "/v1/payment_intents/pi_1/cancel",
      paymentIntent: "pi_1",
      action: "cancel",
    });
    expect(describeWrite("POST", "/v1/refunds", "payment_intent=pi_2&amount=100")).toMatchObject({
      paymentIntent: "pi_2",
      action: "refund",
    });
    expect(describeWrite("POST", "/v1/confirmation_tokens", "")).toMatchObject({
      paymentIntent: null,
      action: "other",
    });
  });
});
