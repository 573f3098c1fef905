import { describe, expect, it } from "vitest";
import { EmulatorRequestError } from "./client";
import { rejection, useEmulator, VISA } from "./test-support";

// Stripe's list endpoints take `created` as a number or a range
// (stripe-node: `RangeQueryParam | number` on PaymentIntentListParams and
// RefundListParams) and page newest first with `starting_after`. The audit
// reads a window of the ledger this way.
const emulator = useEmulator();
const HOUR = 3600;

describe("lists by creation time", () => {
  it("lists the payment intents of a window, newest first, across pages, and none outside it", async () => {
    const now = Math.floor(Date.now() / 1000);
    // Three days of history, one intent an hour, recorded out of order.
    const times = Array.from({ length: 72 }, (_, i) => now - (i + 1) * HOUR).reverse();
    const shuffled = [...times.filter((_, i) => i % 2 === 1), ...times.filter((_, i) => i % 2 === 0)];
    const { ids } = await emulator
      .client()
      .history(
        shuffled.map((created) => ({ amount: 500, currency: "usd", created, metadata: { n: String(created) } })),
      );
    expect(ids).toHaveLength(72);
    const live = await emulator.stripe().paymentIntents.create(VISA);

    const stripe = emulator.stripe();
    const window = { gte: now - 24 * HOUR, lte: now - HOUR };
    const seen: number[] = [];
    for await (const intent of stripe.paymentIntents.list({ created: window, limit: 5 })) {
      expect(intent.status).toBe("succeeded");
      expect(intent.amount_received).toBe(500);
      seen.push(intent.created);
    }
    expect(seen).toEqual(times.filter((t) => t >= window.gte && t <= window.lte).reverse());
    expect(seen).toHaveLength(24);

    const first = await stripe.paymentIntents.list({ created: { gt: now - 3 * HOUR, lt: now }, limit: 1 });
    expect(first.data.map((pi) => pi.created)).toEqual([now - HOUR]);
    expect(first.has_more).toBe(true);
    const second = await stripe.paymentIntents.list({
      created: { gt: now - 3 * HOUR, lt: now },
      limit: 10,
      starting_after: first.data[0]!.id,
    });
    expect(second.data.map((pi) => pi.created)).toEqual([now - 2 * HOUR]);
    expect(second.has_more).toBe(false);

    // Without a filter the live intent comes first; an exact time matches that second only.
    expect((await stripe.paymentIntents.list({ limit: 1 })).data[0]!.id).toBe(live.id);
    expect((await stripe.paymentIntents.list({ created: now - 5 * HOUR })).data.map((pi) => pi.created)).toEqual([
      now - 5 * HOUR,
    ]);
    const charge = await stripe.charges.retrieve(
      (await stripe.paymentIntents.retrieve(ids[0]!)).latest_charge as string,
    );
    expect(charge).toMatchObject({ status: "succeeded", amount: 500, payment_intent: ids[0] });
  });

  it("lists refunds by creation time", async () => {
    const stripe = emulator.stripe();
    const paid = await stripe.paymentIntents.create(VISA);
    const refund = await stripe.refunds.create({ payment_intent: paid.id });
    const now = Math.floor(Date.now() / 1000);
    const inWindow = await stripe.refunds.list({ created: { gte: refund.created } });
    expect(inWindow.data.map((r) => r.id)).toEqual([refund.id]);
    expect((await stripe.refunds.list({ created: { gt: now } })).data).toEqual([]);
  });

  it("refuses a created filter Stripe refuses, and history it cannot record", async () => {
    const error = await rejection(
      emulator.stripe().paymentIntents.list({ created: { after: 5 } as unknown as { gte: number } }),
    );
    expect(error).toMatchObject({ statusCode: 400, param: "created" });
    const future = Math.floor(Date.now() / 1000) + HOUR;
    const refused = await emulator
      .client()
      .history([{ amount: 500, currency: "usd", created: future }])
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(EmulatorRequestError);
    expect((refused as EmulatorRequestError).status).toBe(400);
    expect(await emulator.client().ledger()).toEqual([]);
  });
});
