import { expect } from "vitest";
import type { Harness } from "./harness";
import { cart, type Shopper } from "./shopper";
import type { StripeEventLike } from "./webhooks";

/**
 * The shopper pays, the card is charged, and the answer never reaches the
 * app: the charge's response is dropped (dropAfterCharge), the SDK's own
 * retry of the reset connection meets a 500 at the edge (failNext), and so
 * does the app's search for the attempt's intent that a 500 calls for. The
 * app cannot tell, releases the attempt and answers 503; the shopper vanishes.
 * The faults are armed while the charge is held at the emulator's gate.
 * Needs the app's STRIPE_MAX_NETWORK_RETRIES=0 and a Stripe timeout of a few
 * seconds. Returns the succeeded PaymentIntent as the ledger holds it.
 */
export async function vanishAfterCharge(
  h: Harness,
  shopper: Shopper,
  key: string,
): Promise<StripeEventLike["data"]["object"] & { id: string }> {
  await h.emulator.faults({ gate: true });
  const answer = shopper.checkout(key, cart());
  await h.emulator.held(1); // one create-and-confirm
  // Armed before the gate opens (the patch is merged first): the held charge's answer is the one dropped.
  const opened = await h.emulator.faults({ dropAfterCharge: 1, failNext: { status: 500, times: 2 }, gate: false });
  expect(opened).toMatchObject({ held: 0, stats: { gated: 1 } });
  expect((await answer).status).toBe(503);
  expect(await h.emulator.stats()).toMatchObject({ charges: 1, dropped: 1, failedInjected: 2 });
  expect(await h.db.record(shopper.customerId!, key)).toMatchObject({
    status: "in_progress",
    lock_token: null,
    attempts: 1,
  });
  const [intent] = await h.emulator.ledger();
  expect(intent).toMatchObject({ status: "succeeded" });
  const [order] = await h.db.ordersOf(shopper.customerId!);
  // The answer was lost, so the shop never learned the intent's id.
  expect(order).toMatchObject({ status: "pending", payment_intent_id: null });
  return intent as unknown as StripeEventLike["data"]["object"] & { id: string };
}
