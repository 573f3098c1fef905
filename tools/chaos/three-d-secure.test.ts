import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { authenticate } from "./three-d-secure";

/** The soak's shopper on the emulator's real 3-D Secure page: each button leads back to the return URL with its outcome. */
let emulator: StripeEmulator;
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
});
afterAll(() => emulator.close());

async function intentNeedingAuthentication(): Promise<{ id: string; url: string }> {
  const response = await fetch(`${emulator.url}/v1/payment_intents`, {
    method: "POST",
    headers: { authorization: "Bearer sk_test_emulator", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      amount: "2500",
      currency: "usd",
      payment_method: "pm_card_threeDSecure2Required",
      confirm: "true",
      return_url: "http://shop.test/checkout/return?key=k1",
    }).toString(),
  });
  const intent = (await response.json()) as {
    id: string;
    status: string;
    next_action: { redirect_to_url: { url: string } };
  };
  expect(intent.status).toBe("requires_action");
  return { id: intent.id, url: intent.next_action.redirect_to_url.url };
}

describe("the soak's 3-D Secure shopper", () => {
  it.each([
    ["complete", "succeeded"],
    ["fail", "failed"],
  ] as const)("presses %s and is sent back to the return URL with redirect_status=%s", async (choice, status) => {
    const { id, url } = await intentNeedingAuthentication();
    const back = new URL(await authenticate(url, choice));
    expect(back.origin + back.pathname).toBe("http://shop.test/checkout/return");
    expect(back.searchParams.get("key")).toBe("k1");
    expect(back.searchParams.get("payment_intent")).toBe(id);
    expect(back.searchParams.get("redirect_status")).toBe(status);
  });
});
