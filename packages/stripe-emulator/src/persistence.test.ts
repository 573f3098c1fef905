import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { createStripeClient } from "../../../lib/payments/stripe-client";
import { scratchDir } from "../../../tests/helpers/scratch";
import { EmulatorClient } from "./client";
import { startStripeEmulator, StateFileError, type StripeEmulator } from "./server";
import { SECRET_KEY, VISA } from "./test-support";

/** Driven by the real stripe-node SDK, as the shop drives Stripe, across two emulators on one state file. */
function sdk(emulator: StripeEmulator): Stripe {
  return createStripeClient({ secretKey: SECRET_KEY, apiBase: emulator.url, maxNetworkRetries: 0, timeoutMs: 10_000 });
}

async function stateFile(): Promise<string> {
  return path.join(await scratchDir("emulator-state-"), "stripe-emulator.state");
}

describe("the state file", () => {
  it("keeps the ledger, refunds, tokens, events and idempotency keys across a restart, as Stripe keeps them", async () => {
    const file = await stateFile();
    const first = await startStripeEmulator({ port: 0, stateFile: file });
    const stripe = sdk(first);
    const key = randomUUID();
    const paid = await stripe.paymentIntents.create({ ...VISA, metadata: { orderId: "o-1" } }, { idempotencyKey: key });
    const declined = await stripe.paymentIntents
      .create({ ...VISA, payment_method: "pm_card_chargeDeclined" })
      .catch((err: Stripe.errors.StripeCardError) => err.payment_intent!);
    const refund = await stripe.refunds.create({ payment_intent: paid.id, amount: 500 });
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" });
    const events = (await stripe.events.list({ limit: 100 })).data.map((e) => e.id);
    expect(events.length).toBeGreaterThan(2);
    await first.close();

    const second = await startStripeEmulator({ port: 0, stateFile: file });
    try {
      const again = sdk(second);
      const intents = (await again.paymentIntents.list({ limit: 100 })).data;
      expect(intents.map((pi) => [pi.id, pi.status])).toEqual([
        [declined.id, "requires_payment_method"],
        [paid.id, "succeeded"],
      ]);
      expect(await again.paymentIntents.retrieve(paid.id)).toMatchObject({
        amount_received: VISA.amount,
        metadata: { orderId: "o-1" },
        latest_charge: paid.latest_charge,
      });
      expect((await again.refunds.list({ payment_intent: paid.id })).data).toEqual([
        expect.objectContaining({ id: refund.id, amount: 500 }),
      ]);
      expect((await again.events.list({ limit: 100 })).data.map((e) => e.id)).toEqual(events);
      expect((await again.confirmationTokens.retrieve(token.id)).id).toBe(token.id);
      // The same request under the same key is answered from the first emulator's record: not charged again.
      const replayed = await again.paymentIntents.create(
        { ...VISA, metadata: { orderId: "o-1" } },
        { idempotencyKey: key },
      );
      expect(replayed.id).toBe(paid.id);
      expect(replayed.lastResponse.headers["idempotent-replayed"]).toBe("true");
      // New intents join the old ones, newest first.
      const next = await again.paymentIntents.create(VISA);
      expect((await again.paymentIntents.list({ limit: 100 })).data.map((pi) => pi.id)).toEqual([
        next.id,
        declined.id,
        paid.id,
      ]);
    } finally {
      await second.close();
    }
  });

  it("holds a charge once it is answered, though the emulator never stops cleanly", async () => {
    const file = await stateFile();
    const first = await startStripeEmulator({ port: 0, stateFile: file });
    const paid = await sdk(first).paymentIntents.create(VISA);
    // No close: what the caller was told is already in the file.
    const second = await startStripeEmulator({ port: 0, stateFile: file });
    try {
      expect((await sdk(second).paymentIntents.retrieve(paid.id)).status).toBe("succeeded");
    } finally {
      await Promise.all([second.close(), first.close()]);
    }
  });

  it("forgets a key whose request never finished, so it can be sent again", async () => {
    const file = await stateFile();
    const first = await startStripeEmulator({ port: 0, stateFile: file });
    const controls = new EmulatorClient(first.url);
    await controls.faults({ gate: true });
    const key = randomUUID();
    const held = sdk(first)
      .paymentIntents.create(VISA, { idempotencyKey: key })
      .catch((err: unknown) => err);
    await controls.held(1);
    await controls.faults({ gate: true }); // a change: the file now has the key, claimed and unfinished
    const second = await startStripeEmulator({ port: 0, stateFile: file });
    try {
      const sentAgain = await sdk(second).paymentIntents.create(VISA, { idempotencyKey: key });
      expect(sentAgain.status).toBe("succeeded");
      expect(sentAgain.lastResponse.headers["idempotent-replayed"]).toBeUndefined();
    } finally {
      await second.close();
      await first.close();
      await held;
    }
  });

  it("refuses a file it cannot read, naming it, and leaves it as it was", async () => {
    const file = await stateFile();
    await writeFile(file, "not a state file");
    const error = await startStripeEmulator({ port: 0, stateFile: file }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toContain(`${file} is not a state file of this emulator`);
    expect(await readFile(file, "utf8")).toBe("not a state file");
  });
});
