import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { rejection, useEmulator, VISA } from "./test-support";

const emulator = useEmulator();

describe("listing by creation time, and search as Stripe's lags", () => {
  it("lists the intents created in a window, paged with starting_after", async () => {
    const stripe = emulator.stripe();
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await stripe.paymentIntents.create(VISA));
    const created = made[0]!.created;
    const listed: string[] = [];
    for await (const pi of stripe.paymentIntents.list({ created: { gte: created, lte: created + 60 }, limit: 2 }))
      listed.push(pi.id);
    expect(listed).toEqual(made.map((pi) => pi.id).reverse());
    expect((await stripe.paymentIntents.list({ created: { gt: created + 60 } })).data).toEqual([]);
  });

  it("searchLagMs: search does not see an intent until it is that old; the list does at once", async () => {
    const stripe = emulator.stripe();
    await emulator.setFaults({ searchLagMs: 600_000 });
    const paid = await stripe.paymentIntents.create({ ...VISA, metadata: { orderId: "o-1" } });
    expect((await stripe.paymentIntents.search({ query: "metadata['orderId']:'o-1'" })).data).toEqual([]);
    expect((await stripe.paymentIntents.list({ created: { gte: paid.created } })).data.map((pi) => pi.id)).toEqual([
      paid.id,
    ]);
    await emulator.setFaults({ searchLagMs: 0 });
    expect(
      (await stripe.paymentIntents.search({ query: "metadata['orderId']:'o-1'" })).data.map((pi) => pi.id),
    ).toEqual([paid.id]);
  });

  it("searchUnavailable: every search is refused, counted; lists still answer", async () => {
    const stripe = emulator.stripe();
    await emulator.setFaults({ searchUnavailable: true });
    const refused = await rejection(stripe.paymentIntents.search({ query: "status:'succeeded'" }));
    expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(refused).toMatchObject({ statusCode: 400, code: "feature_not_enabled" });
    expect((await emulator.faults()).stats).toMatchObject({ searches: 1, searchesRefused: 1 });
    expect((await stripe.paymentIntents.list()).data).toEqual([]);
  });
});
