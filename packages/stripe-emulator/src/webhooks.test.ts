import Stripe from "stripe";
import { afterEach, describe, expect, it, vi } from "vitest";
import { rejection, startReceiver, useEmulator, VISA, type Received } from "./test-support";

const emulator = useEmulator();
const SECRET = "whsec_test_secret";
const verifier = new Stripe("sk_test_unused");
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** Verifies a delivery as the app does: the real SDK on the raw body. */
function verify(delivery: Received): Stripe.Event {
  return verifier.webhooks.constructEvent(delivery.body, delivery.signature ?? "", SECRET);
}

/** An endpoint that accepts only correctly signed deliveries (400 otherwise), like the app's. */
async function verifyingEndpoint(retryBaseMs = 20, statusFor: (event: Stripe.Event) => number = () => 200) {
  receiver = await startReceiver((delivery) => {
    try {
      return statusFor(verify(delivery));
    } catch {
      return 400;
    }
  });
  await emulator.setWebhooks({ url: receiver.url, secret: SECRET, retryBaseMs });
  return receiver;
}

async function settled() {
  await vi.waitFor(async () => expect((await emulator.webhooks()).stats.pending).toBe(0), {
    timeout: 5000,
    interval: 20,
  });
  return (await emulator.webhooks()).stats;
}

describe("events", () => {
  it("records each transition with a snapshot, the request and its key, newest first", async () => {
    const client = emulator.stripe();
    const created = await client.paymentIntents.create({
      amount: 500,
      currency: "usd",
      payment_method: "pm_card_visa",
    });
    const confirmed = await client.paymentIntents.confirm(created.id, {}, { idempotencyKey: "confirm-1" });
    const refund = await client.refunds.create({ payment_intent: created.id, amount: 200 });

    const events = await client.events.list();
    expect(events.data.map((event) => event.type)).toEqual([
      "charge.refunded",
      "refund.created",
      "payment_intent.succeeded",
      "payment_intent.created",
    ]);
    const [refunded, , succeeded, first] = events.data;
    expect(first).toMatchObject({
      object: "event",
      livemode: false,
      pending_webhooks: 0,
      request: { id: created.lastResponse.requestId },
    });
    expect(first?.id).toMatch(/^evt_/);
    expect(first?.data.object).toMatchObject({ id: created.id, status: "requires_confirmation" }); // as it was then
    expect(succeeded).toMatchObject({
      request: { id: confirmed.lastResponse.requestId, idempotency_key: "confirm-1" },
      data: { object: { status: "succeeded" } },
    });
    expect(refunded?.data.object).toMatchObject({
      object: "charge",
      id: created.latest_charge ?? confirmed.latest_charge,
      amount_refunded: 200,
      refunded: false,
    });
    expect(refund.id).toMatch(/^re_/);

    const filtered = await client.events.list({ type: "payment_intent.*", limit: 1 });
    expect(filtered.data.map((event) => event.id)).toEqual([succeeded?.id]);
    expect(filtered.has_more).toBe(true);
    const next = await client.events.list({ type: "payment_intent.*", starting_after: succeeded?.id ?? "" });
    expect(next.data.map((event) => event.id)).toEqual([first?.id]);
    expect(await client.events.retrieve(first?.id ?? "")).toEqual({ ...first });
  });

  it("pages towards the present with ending_before, as stripe-node's auto-pagination does", async () => {
    const client = emulator.stripe();
    for (let i = 0; i < 3; i++) await client.paymentIntents.create(VISA); // six events: created, succeeded
    const all = (await client.events.list({ limit: 100 })).data.map((event) => event.id);
    expect(all).toHaveLength(6);
    const oldest = all.at(-1)!;
    const page = await client.events.list({ ending_before: oldest, limit: 2 });
    expect(page.data.map((event) => event.id)).toEqual(all.slice(3, 5)); // the two just newer, newest first
    expect(page.has_more).toBe(true);
    const forward: string[] = [];
    for await (const event of client.events.list({ ending_before: oldest, limit: 2 })) forward.push(event.id);
    expect(forward).toEqual(all.slice(0, 5).reverse()); // oldest first, to the newest
    const gone = await rejection(client.events.list({ ending_before: "evt_gone" }));
    expect(gone).toMatchObject({ statusCode: 404, code: "resource_missing", param: "ending_before" });
  });

  it("records requires_action, payment_failed and canceled", async () => {
    const client = emulator.stripe();
    const declined = await client.paymentIntents.create({
      amount: 100,
      currency: "usd",
      payment_method: "pm_card_chargeDeclined",
    });
    await client.paymentIntents.confirm(declined.id).catch(() => undefined);
    await client.paymentIntents.cancel(declined.id, { cancellation_reason: "abandoned" });
    await client.paymentIntents.create({
      amount: 100,
      currency: "usd",
      payment_method: "pm_card_threeDSecure2Required",
      confirm: true,
      return_url: "http://127.0.0.1/return",
    });
    const types = (await client.events.list({ limit: 100 })).data.map((event) => event.type).reverse();
    expect(types).toEqual([
      "payment_intent.created",
      "payment_intent.payment_failed",
      "payment_intent.canceled",
      "payment_intent.created",
      "payment_intent.requires_action",
    ]);
  });
});

describe("webhook delivery", () => {
  it("delivers every event signed like Stripe, verified by stripe.webhooks.constructEvent", async () => {
    const endpoint = await verifyingEndpoint();
    const intent = await emulator.stripe().paymentIntents.create(VISA);
    const stats = await settled();
    expect(stats).toMatchObject({ enqueued: 2, delivered: 2, failedAttempts: 0, retries: 0 });
    const events = endpoint.received.map(verify);
    expect(events.map((event) => event.type).sort()).toEqual(["payment_intent.created", "payment_intent.succeeded"]);
    expect(
      events.every((event) => (event.data.object as { id: string }).id === intent.id && event.pending_webhooks === 1),
    ).toBe(true);
    expect(endpoint.received[0]?.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(() =>
      verifier.webhooks.constructEvent(
        endpoint.received[0]?.body ?? "",
        endpoint.received[0]?.signature ?? "",
        "whsec_other",
      ),
    ).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it("retries a 500 with backoff and gives up after maxAttempts on a dead endpoint", async () => {
    let failures = 2;
    const endpoint = await verifyingEndpoint(20, () => (failures-- > 0 ? 500 : 200));
    await emulator.stripe().paymentIntents.create({ amount: 100, currency: "usd" }); // one event
    const stats = await settled();
    expect(stats).toMatchObject({ delivered: 1, failedAttempts: 2, retries: 2, gaveUp: 0 });
    expect(Object.values(stats.attempts)).toEqual([3]);
    expect(new Set(endpoint.received.map((delivery) => delivery.body)).size).toBe(1); // the same bytes every time

    await endpoint.close();
    await emulator.setWebhooks({ maxAttempts: 2 });
    await emulator.stripe().paymentIntents.create({ amount: 100, currency: "usd" });
    expect(await settled()).toMatchObject({ delivered: 1, failedAttempts: 4, gaveUp: 1 });
  });

  it("duplicate: delivers each event n extra times", async () => {
    const endpoint = await verifyingEndpoint();
    await emulator.setWebhooks({ faults: { duplicate: 2 } });
    await emulator.stripe().paymentIntents.create({ amount: 100, currency: "usd" });
    expect(await settled()).toMatchObject({ delivered: 3, duplicatesSent: 2 });
    expect(new Set(endpoint.received.map((delivery) => verify(delivery).id)).size).toBe(1);
    expect(endpoint.received).toHaveLength(3);
  });

  it("reorder: holds a batch and sends it newest first", async () => {
    const endpoint = await verifyingEndpoint();
    await emulator.setWebhooks({ faults: { reorder: { batch: 3 } } });
    const client = emulator.stripe();
    for (const amount of [100, 200, 300]) await client.paymentIntents.create({ amount, currency: "usd" });
    expect(await settled()).toMatchObject({ delivered: 3, reorderedBatches: 1 });
    const amounts = endpoint.received.map((delivery) => (verify(delivery).data.object as { amount: number }).amount);
    expect(amounts).toEqual([300, 200, 100]);
    expect((await emulator.webhooks()).faults.reorder).toBeNull();
  });

  it("delayMs: the API answers at once while the delivery waits", async () => {
    const endpoint = await verifyingEndpoint();
    await emulator.setWebhooks({ faults: { delayMs: 300 } });
    await emulator.stripe().paymentIntents.create({ amount: 100, currency: "usd" });
    expect((await emulator.webhooks()).stats.pending).toBe(1);
    expect(endpoint.received).toEqual([]);
    expect(await settled()).toMatchObject({ delivered: 1 });
  });

  it("dropFirst: the first n attempts never reach the endpoint and are retried", async () => {
    const endpoint = await verifyingEndpoint();
    await emulator.setWebhooks({ faults: { dropFirst: 2 } });
    await emulator.stripe().paymentIntents.create({ amount: 100, currency: "usd" });
    expect(await settled()).toMatchObject({ delivered: 1, dropped: 2, failedAttempts: 2, retries: 2 });
    expect(endpoint.received).toHaveLength(1);
  });

  it("badSignature: the endpoint refuses the badly signed delivery, and the retry is signed right", async () => {
    const endpoint = await verifyingEndpoint();
    await emulator.setWebhooks({ faults: { badSignature: 1 } });
    await emulator.stripe().paymentIntents.create({ amount: 100, currency: "usd" });
    expect(await settled()).toMatchObject({ delivered: 1, badSigned: 1, failedAttempts: 1 });
    expect(endpoint.received).toHaveLength(2);
    expect(() => verify(endpoint.received[0] as Received)).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(verify(endpoint.received[1] as Received).type).toBe("payment_intent.created");
  });

  it("reset forgets the endpoint, its faults, counters and events", async () => {
    await verifyingEndpoint();
    await emulator.setWebhooks({ faults: { duplicate: 1, dropFirst: 3 } });
    await emulator.stripe().paymentIntents.create({ amount: 100, currency: "usd" });
    await fetch(`${emulator.url()}/_emulator/reset`, { method: "POST" });
    const view = await emulator.webhooks();
    expect(view).toMatchObject({
      url: null,
      secret: "whsec_emulator",
      faults: { duplicate: 0, dropFirst: 0, reorder: null },
      stats: { enqueued: 0, pending: 0 },
    });
    expect((await emulator.stripe().events.list()).data).toEqual([]);
  });

  it("rejects bad control input without changing anything", async () => {
    for (const body of [
      { url: "ftp://x" },
      { faults: { duplicate: -1 } },
      { faults: { reorder: { batch: 1 } } },
      { typo: 1 },
    ]) {
      const res = await fetch(`${emulator.url()}/_emulator/webhooks`, { method: "POST", body: JSON.stringify(body) });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(await emulator.webhooks()).toMatchObject({ url: null, faults: { duplicate: 0, reorder: null } });
  });
});
