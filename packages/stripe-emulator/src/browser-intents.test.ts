import { describe, expect, it } from "vitest";
import { STRIPE_JS_FAILURE_HEADER } from "./browser-intents";
import { useEmulator } from "./test-support";

const emulator = useEmulator();
const PUBLISHABLE = "pk_test_emulator";

async function waitingIntent() {
  return emulator.stripe().paymentIntents.create({
    amount: 1999,
    currency: "eur",
    payment_method: "pm_card_threeDSecure2Required",
    allowed_payment_method_types: ["card"],
    confirm: true,
  });
}

/** The read Stripe.js makes before it handles a next action: the publishable key and the client secret. */
function browserRead(id: string, clientSecret: string, key = PUBLISHABLE) {
  const url = `${emulator.url()}/v1/payment_intents/${id}?client_secret=${encodeURIComponent(clientSecret)}`;
  return fetch(url, { headers: { Authorization: `Bearer ${key}`, Origin: "http://shop.test" } });
}

describe("The intent as Stripe.js reads it", () => {
  it("answers the intent's public fields to its publishable key and client secret, across origins", async () => {
    const intent = await waitingIntent();
    const answer = await browserRead(intent.id, intent.client_secret!);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    expect(answer.headers.get(STRIPE_JS_FAILURE_HEADER)).toBeNull();
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ id: intent.id, status: "requires_action", client_secret: intent.client_secret });
    expect(body).not.toHaveProperty("metadata");
  });

  it("answers an unknown intent to a client secret that is not the intent's", async () => {
    const intent = await waitingIntent();
    const answer = await browserRead(intent.id, `${intent.id}_secret_wrong`);
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("resource_missing");
  });

  it("lets a page's preflight through", async () => {
    const intent = await waitingIntent();
    const answer = await fetch(`${emulator.url()}/v1/payment_intents/${intent.id}`, { method: "OPTIONS" });
    expect(answer.status).toBe(204);
    expect(answer.headers.get("access-control-allow-methods")).toBe("GET");
    expect(answer.headers.get("access-control-expose-headers")).toBe(STRIPE_JS_FAILURE_HEADER);
  });

  it.each(["reject", "network", "closed"] as const)(
    "tells the stand-in to fail (%s) as many times as armed, and counts it",
    async (failure) => {
      await emulator.setFaults({ stripeJs: { failure, times: 1 } });
      const intent = await waitingIntent();
      expect((await browserRead(intent.id, intent.client_secret!)).headers.get(STRIPE_JS_FAILURE_HEADER)).toBe(failure);
      expect((await browserRead(intent.id, intent.client_secret!)).headers.get(STRIPE_JS_FAILURE_HEADER)).toBeNull();
      const faults = await emulator.faults();
      expect(faults.stats.stripeJsFailures).toBe(1);
      expect(faults.stripeJs).toBeNull();
    },
  );

  it("refuses a stripeJs fault it does not know, and changes nothing", async () => {
    await expect(emulator.setFaults({ stripeJs: { failure: "explode" as never, times: 1 } })).rejects.toThrow(
      /stripeJs must be null or/,
    );
    expect((await emulator.faults()).stripeJs).toBeNull();
  });
});
