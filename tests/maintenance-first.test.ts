import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, waitFor } from "./helpers/shopper";

/**
 * With MAINTENANCE_INTERVAL_MS set, the maintenance timer (started from
 * Next's instrumentation hook, a bundle of its own) may build the app's
 * services — the Stripe client among them — before any request does. The
 * payment code in a route's bundle must still recognise that client's
 * errors: a decline is a stored 402, never an "unknown" 503.
 */
const h = useTestApp({ MAINTENANCE_INTERVAL_MS: "200" }, { ownDatabase: "maintenance" });

describe("a payment after the in-process maintenance built the app's services", () => {
  it("records a declined card as 402 card_declined and replays it", async () => {
    // Evidence that a maintenance round ran (and built the services) before any checkout: it deleted this record.
    const subject = randomUUID();
    const expiredKey = await h.db.insertExpired(subject);
    await waitFor(
      "the maintenance's cleanup to run",
      async () => (await h.db.record(subject, expiredKey)) === null,
      15_000,
    );

    const shopper = await h.shopper();
    const key = newKey();
    const declined = await shopper.checkout(key, cart("pm_card_chargeDeclined"));
    expect(declined.status).toBe(402);
    expect(declined.body).toMatchObject({ error: "card_declined", declineCode: "generic_decline" });
    const replay = await shopper.checkout(key, cart("pm_card_chargeDeclined"));
    expect(replay.status).toBe(402);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await h.db.record(shopper.customerId!, key)).toMatchObject({ status: "failed", response_status: 402 });
    expect(await h.emulator.stats()).toMatchObject({ declines: 1, charges: 0 });

    const paid = await shopper.checkout(newKey(), cart());
    expect(paid.status).toBe(201);
  });
});
