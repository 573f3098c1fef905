import { describe, expect, it } from "vitest";
import { useTestApp } from "./helpers/harness";
import { delta, scrape } from "./helpers/metrics";
import { deliver, stripeEvent } from "./helpers/webhooks";

/**
 * A delivery Stripe signed whose JSON PostgreSQL's jsonb cannot hold (a
 * `\u0000`, an unpaired surrogate) is acknowledged with 2xx, logged and
 * counted: answering 503 would have Stripe redeliver it for days, failing
 * the same way each time.
 */
const h = useTestApp();

describe("an unstorable webhook delivery", () => {
  it.each([
    ["a \\u0000", "a\u0000b"],
    ["an unpaired surrogate", "\ud800"],
  ])("carrying %s is acknowledged, counted, and stores nothing", async (_, note) => {
    const event = stripeEvent("payment_intent.succeeded", { id: "pi_unstorable", object: "payment_intent", note });
    const payload = JSON.stringify(event); // JSON.stringify escapes both as \u0000 and \ud800
    expect(payload).toMatch(/\\u(0000|d800)/);
    const before = await scrape(h.url);
    const answer = await deliver(h.url, event, { payload });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ received: true, stored: false });
    expect(await h.db.webhookEvent(event.id)).toBeNull();
    const after = await scrape(h.url);
    expect(delta(before, after, 'webhook_events_total{stage="unstorable",type="payment_intent.succeeded"}')).toBe(1);
    // Redelivered, it is acknowledged again, never a 503.
    expect((await deliver(h.url, event, { payload })).status).toBe(200);
  });
});
