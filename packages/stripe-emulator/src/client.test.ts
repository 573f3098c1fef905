import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { EmulatorClient, EmulatorRequestError } from "./client";
import { startReceiver, useEmulator, VISA } from "./test-support";

// The control client against a real emulator: each method reaches its
// endpoint, and the answers are the server's own.

const emulator = useEmulator();
const newKey = () => `sk_test_${randomUUID().replaceAll("-", "")}`;

describe("EmulatorClient", () => {
  it("sets faults, reads them back with the counters, and reads one counter", async () => {
    const client = new EmulatorClient(emulator.url());
    const set = await client.faults({ failNext: { status: 503, times: 1 }, latencyMs: 5 });
    expect(set).toMatchObject({ failNext: { status: 503, times: 1 }, latencyMs: 5, held: 0 });
    expect(await client.snapshot()).toEqual(set);

    await expect(emulator.stripe().paymentIntents.create(VISA)).rejects.toMatchObject({ statusCode: 503 });
    expect(await client.stat("failedInjected")).toBe(1);
    expect((await client.stats()).requests).toBe(1);
  });

  it("says what the emulator refused, with its status and answer", async () => {
    const client = new EmulatorClient(emulator.url());
    const error = await client.faults({ latencyMs: -1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmulatorRequestError);
    expect(error).toMatchObject({ status: 400, message: expect.stringContaining("latencyMs must be an integer") });
    expect((await client.snapshot()).latencyMs).toBe(0); // a bad patch changes nothing
  });

  it("waits for writes held at the gate, then lets them go", async () => {
    const client = new EmulatorClient(emulator.url());
    await client.faults({ gate: true });
    const charge = emulator.stripe().paymentIntents.create(VISA);
    expect((await client.held(1)).held).toBe(1);
    await client.faults({ gate: false });
    expect((await charge).status).toBe("succeeded");
    expect(await client.stat("gated")).toBe(1);
  });

  it("reads the ledger, the refunds and the events of the account", async () => {
    const client = new EmulatorClient(emulator.url());
    const intent = await emulator.stripe().paymentIntents.create(VISA);
    const refund = await emulator.stripe().refunds.create({ payment_intent: intent.id, amount: 500 });
    expect((await client.ledger()).map((pi) => [pi.id, pi.status])).toEqual([[intent.id, "succeeded"]]);
    expect((await client.refunds(intent.id)).map((r) => [r.id, r.amount])).toEqual([[refund.id, 500]]);
    expect((await client.events()).map((event) => event.type)).toContain("payment_intent.succeeded");
  });

  it("configures webhook deliveries and reads their counters", async () => {
    const receiver = await startReceiver();
    try {
      const client = new EmulatorClient(emulator.url());
      const view = await client.webhooks({ url: receiver.url, faults: { duplicate: 1 } });
      expect(view).toMatchObject({ url: receiver.url, faults: { duplicate: 1 } });
      expect(await client.webhookSnapshot()).toMatchObject({ url: receiver.url });
      await emulator.stripe().paymentIntents.create(VISA);
      await expect.poll(() => client.webhookStat("duplicatesSent")).toBeGreaterThanOrEqual(1);
      await expect.poll(() => client.webhookStat("pending")).toBe(0);
    } finally {
      await new EmulatorClient(emulator.url()).webhooks({ url: null });
      await receiver.close();
    }
  });

  it("with an API key, addresses that key's account alone once reset", async () => {
    const key = newKey();
    const own = new EmulatorClient(emulator.url(), { apiKey: key });
    const shared = new EmulatorClient(emulator.url());
    await own.reset();
    await own.faults({ latencyMs: 7 });
    expect((await shared.snapshot()).latencyMs).toBe(0);

    await emulator.stripe({ secretKey: key }).paymentIntents.create(VISA);
    expect(await own.ledger()).toHaveLength(1);
    expect(await shared.ledger()).toEqual([]);
    expect(await own.stat("delayed")).toBe(1);

    await own.reset();
    expect(await own.snapshot()).toMatchObject({ latencyMs: 0, stats: { requests: 0 } });
    expect(await own.ledger()).toEqual([]);
  });
});
