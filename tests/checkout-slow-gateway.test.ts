import { describe, expect, it } from "vitest";
import { startTestApp } from "./app-server";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, Shopper, waitFor, type Answer } from "./helpers/shopper";

/**
 * A slow payment provider (each write to Stripe held at the emulator's gate
 * until the test lets it go) and a shopper who keeps clicking. Duplicates must be answered 409 at once, never wait behind the
 * first request, and the card is charged once.
 */
const h = useTestApp();

/** 409 latencies measured in this file, printed at the end for the report. */
const measured: number[] = [];

function expectInProgress(answer: Answer) {
  expect(answer.status).toBe(409);
  expect(answer.body).toEqual({
    error: "in_progress",
    message: expect.any(String),
    retryAfterSeconds: expect.any(Number),
  });
  expect(answer.headers.get("retry-after")).toBe(String(answer.body.retryAfterSeconds));
  expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(answer.headers.get("idempotent-replayed")).toBeNull();
  // "At once" is shown by events, not a clock: each 409 arrives while the gate still holds the charge.
  measured.push(answer.ms);
}

describe("a shopper who clicks Pay again while the payment provider is slow", () => {
  it("gets 409 in_progress with Retry-After at once for every duplicate, then the one stored 201 replayed; one PaymentIntent", async () => {
    // The provider holds each write (the gate) until the duplicates have been answered.
    await h.emulator.faults({ gate: true });
    const shopper = await h.shopper();
    const key = newKey();
    const started = performance.now();
    const firstRequest = shopper.checkout(key, cart());
    let firstAnswered = false;
    void firstRequest.then(() => (firstAnswered = true));

    // While the PaymentIntent is being created and charged...
    await waitFor(
      "the PaymentIntent to be in flight at the provider",
      async () => (await h.emulator.stats()).delayed >= 1,
    );
    for (let i = 0; i < 3; i++) expectInProgress(await shopper.checkout(key, cart()));
    const state = await shopper.attempt(key);
    expect(state.status).toBe(200);
    expect(state.body).toEqual({ status: "in_progress" });
    // ...a different cart under the same key is refused even now.
    const reuse = await shopper.checkout(key, cart("pm_card_visa", [{ sku: "tee-classic", quantity: 5 }]));
    expect(reuse.status).toBe(422);
    expect(reuse.body.error).toBe("idempotency_key_reuse");

    // ...and several at once.
    const burst = await Promise.all(Array.from({ length: 5 }, () => shopper.checkout(key, cart())));
    burst.forEach(expectInProgress);
    expect(await h.emulator.stats()).toMatchObject({ charges: 0, delayed: 1 });
    expect(firstAnswered).toBe(false); // the fault really held the payment up
    await h.emulator.faults({ gate: false });

    const first = await firstRequest;
    const firstMs = performance.now() - started;
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    for (let i = 0; i < 3; i++) {
      const replay = await shopper.checkout(key, cart());
      expect(replay.status).toBe(201);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.body).toEqual(first.body);
    }
    expect((await shopper.attempt(key)).body).toEqual({
      status: "completed",
      response: { statusCode: 201, body: first.body },
    });

    const stats = await h.emulator.stats();
    expect(stats).toMatchObject({ charges: 1, delayed: 1 });
    const ledger = await h.emulator.ledger();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ id: first.body.paymentIntentId, status: "succeeded" });
    expect(await h.db.ordersOf(shopper.customerId!)).toHaveLength(1);
    console.log(
      `[slow gateway] first request ${Math.round(firstMs)} ms; 409s ${measured.map(Math.round).join(", ")} ms`,
    );
  });

  it("double-clicks 10 times at once: one request pays, the other nine get 409 at once; one PaymentIntent", async () => {
    // The provider holds the charge until the nine duplicates have been answered: none waits behind it.
    await h.emulator.faults({ gate: true });
    const shopper = await h.shopper();
    const key = newKey();
    const arrived: Answer[] = [];
    const requests = Array.from({ length: 10 }, () =>
      shopper.checkout(key, cart()).then((answer) => {
        arrived.push(answer);
        return answer;
      }),
    );
    await waitFor("nine answers while the provider holds the charge", () => arrived.length >= 9);
    expect(arrived).toHaveLength(9);
    arrived.forEach(expectInProgress);
    expect((await h.emulator.held(1)).held).toBe(1);
    expect(await h.emulator.stats()).toMatchObject({ charges: 0, delayed: 1 });
    await h.emulator.faults({ gate: false });

    const answers = await Promise.all(requests);
    const paid = answers.filter((a) => a.status === 201);
    const busy = answers.filter((a) => a.status === 409);
    expect(paid).toHaveLength(1);
    expect(busy).toHaveLength(9);
    expect(arrived.at(-1)).toBe(paid[0]); // the payer's answer came last, after the charge was let go
    expect(await h.emulator.stats()).toMatchObject({ charges: 1, delayed: 1 });
    expect(await h.emulator.ledger()).toHaveLength(1);
    console.log(
      `[double click] paid after ${Math.round(paid[0]!.ms)} ms; 409s ${busy.map((a) => Math.round(a.ms)).join(", ")} ms`,
    );
  });

  it("on two app instances at once: the second instance answers 409 during the first one's charge, then replays its 201", async () => {
    const second = await startTestApp({}, h.app.emulator); // same database, same provider
    try {
      await h.emulator.faults({ gate: true });
      const shopper = await h.shopper();
      const sameShopperElsewhere = Object.assign(new Shopper(second.url), {
        cookie: shopper.cookie,
        customerId: shopper.customerId,
      });
      // Warm the fresh instance (route modules, database connections) so it is timed like one in service.
      expect((await sameShopperElsewhere.attempt(newKey())).status).toBe(404);
      const key = newKey();
      const first = shopper.checkout(key, cart());
      await waitFor("the payment to be in flight", async () => (await h.emulator.stats()).delayed >= 1);
      const reuse = await sameShopperElsewhere.checkout(key, cart("pm_card_visa", [{ sku: "tote-bag", quantity: 1 }]));
      expect(reuse.status).toBe(422); // also warms this instance's claim path
      for (let i = 0; i < 3; i++) expectInProgress(await sameShopperElsewhere.checkout(key, cart()));
      expect(await h.emulator.stats()).toMatchObject({ charges: 0, delayed: 1 }); // all three while the charge was held
      await h.emulator.faults({ gate: false });
      const paid = await first;
      expect(paid.status).toBe(201);
      const replay = await sameShopperElsewhere.checkout(key, cart());
      expect(replay.status).toBe(201);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.body).toEqual(paid.body);
      expect(await h.emulator.stats()).toMatchObject({ charges: 1 });
      expect(await h.emulator.ledger()).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});
