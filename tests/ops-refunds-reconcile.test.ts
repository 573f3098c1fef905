import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TEST_OPS_TOKEN } from "./app-env";
import { killDuringRefund } from "./helpers/crash";
import { useTestApp } from "./helpers/harness";
import { cart, CART_TOTAL_CENTS, waitFor } from "./helpers/shopper";

/**
 * An operator's refund whose server was killed while its call to Stripe was
 * in flight, and whose operator never pressed again: the server's own
 * maintenance loop (the reconciler) takes it over and finishes it: from the
 * ledger row when Stripe's news of the refund came first, else with the
 * attempt's derived Stripe key, which Stripe replays (lib/refunds/
 * reconcile.test.ts shows the replay); the operator's later press replays
 * the stored answer.
 * A database of its own: the reconciler finishes every abandoned attempt.
 */
const TTL_MS = 60_000;
const h = useTestApp(
  {
    OPS_TOKEN: TEST_OPS_TOKEN,
    IDEMPOTENCY_IN_PROGRESS_TTL_MS: String(TTL_MS),
    STRIPE_TIMEOUT_MS: "5000",
    STRIPE_MAX_NETWORK_RETRIES: "0",
    MAINTENANCE_INTERVAL_MS: "300",
  },
  { ownDatabase: "opsrefundreconcile" },
);
const AUTH = { authorization: `Bearer ${TEST_OPS_TOKEN}` };

describe("the reconciler and an operator's refund abandoned mid-call", () => {
  it("takes it over after the TTL and refunds once, under the same Stripe key", async () => {
    const shopper = await h.shopper();
    const paid = await shopper.checkout(randomUUID(), cart());
    expect(paid.status).toBe(201);
    const orderId = paid.body.orderId as string;
    const paymentIntentId = (await h.db.order(orderId))!.payment_intent_id as string;
    const key = randomUUID();
    const press = () =>
      shopper.request("POST", `/api/ops/orders/${orderId}/refunds`, {
        body: { amountCents: 700 },
        anonymous: true,
        headers: { ...AUTH, "idempotency-key": key },
      });
    await killDuringRefund(h, press);
    // The dead process's refund went through at Stripe once the gate opened.
    expect((await h.emulator.refunds(paymentIntentId)).map((r) => r.amount)).toEqual([700]);
    const replayedBefore = await h.emulator.stat("replayed");
    await h.app.restart();
    // Within the TTL the reconciler leaves it alone: its owner may still be at Stripe.
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await h.db.record("ops", key))?.status).toBe("in_progress");
    await h.db.ageAttempt("ops", key, TTL_MS);
    const record = await waitFor("the reconciler to finish the refund", async () => {
      const row = await h.db.record("ops", key);
      return row?.status === "completed" ? row : null;
    });
    expect(record.response_status).toBe(201);
    // Either Stripe replayed the refund for the attempt's key, or Stripe's news of it (refund.created) reached the
    // ledger first and the reconciler answered from the row without asking: never a second refund.
    expect(await h.emulator.stat("replayed")).toBeLessThanOrEqual(replayedBefore + 1);
    const refunds = await h.emulator.refunds(paymentIntentId);
    expect(refunds.map((r) => r.amount)).toEqual([700]);
    const again = await press();
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toMatchObject({
      stripeRefundId: refunds[0]!.id,
      amountCents: 700,
      remainingCents: CART_TOTAL_CENTS - 700,
    });
  });
});
