import { describe, expect, it } from "vitest";
import { CheckoutFailure, parseRetryAfter } from "./checkout-failure";
import { postCheckout, resultOf } from "./payment-client";

const attempt = {
  key: "6f1c2b8e-7d1e-4b7a-9a53-0f3f1c9e2a10",
  bodyJson: '{"items":[{"sku":"a","quantity":1}],"paymentMethod":"pm_card_visa"}',
  createdAt: 0,
};
const paid = { orderId: "o1", status: "paid", amountCents: 2500, currency: "usd", paymentIntentId: "pi_1" };

function reply(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

describe("postCheckout", () => {
  it("sends the attempt's key and exact body", async () => {
    let seen: RequestInit | undefined;
    const result = await postCheckout(attempt, {
      fetch: async (_url, init) => ((seen = init), reply(201, paid)),
    });
    expect(result).toEqual({ kind: "paid", order: paid });
    expect(new Headers(seen?.headers).get("idempotency-key")).toBe(attempt.key);
    expect(seen?.body).toBe(attempt.bodyJson);
  });

  it("returns a decline as a value with its reason", async () => {
    const body = {
      error: "card_declined",
      message: "Your card has insufficient funds.",
      declineCode: "insufficient_funds",
    };
    expect(await postCheckout(attempt, { fetch: async () => reply(402, body) })).toEqual({
      kind: "declined",
      error: "card_declined",
      declineCode: "insufficient_funds",
      message: "Your card has insufficient funds.",
    });
  });

  it("returns a 202 requires_action as the bank's page to go to, not as a failure to retry", async () => {
    const body = {
      status: "requires_action",
      orderId: "o1",
      nextAction: { type: "redirect", url: "http://bank.test/3ds/pi_1" },
    };
    expect(await postCheckout(attempt, { fetch: async () => reply(202, body) })).toEqual({
      kind: "requires_action",
      action: { type: "redirect", url: "http://bank.test/3ds/pi_1" },
      orderId: "o1",
    });
  });

  it("returns a 202 for Stripe.js as the client secret to hand to handleNextAction", async () => {
    const body = {
      status: "requires_action",
      orderId: "o1",
      nextAction: { type: "use_stripe_sdk", clientSecret: "pi_1_secret_abc" },
    };
    expect(await postCheckout(attempt, { fetch: async () => reply(202, body) })).toEqual({
      kind: "requires_action",
      action: { type: "use_stripe_sdk", clientSecret: "pi_1_secret_abc" },
      orderId: "o1",
    });
  });

  it("turns a failed fetch or a timeout into a network failure", async () => {
    const failed = postCheckout(attempt, { fetch: async () => Promise.reject(new TypeError("Failed to fetch")) });
    await expect(failed).rejects.toMatchObject({ reason: { kind: "network" } });
    const hanging = postCheckout(attempt, {
      timeoutMs: 20,
      fetch: (_url, init) =>
        new Promise((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason))),
    });
    await expect(hanging).rejects.toMatchObject({
      reason: { kind: "network", detail: expect.stringContaining("TimeoutError") },
    });
  });

  it("treats a 201 whose body was cut off as a lost response", async () => {
    const truncated = new Response('{"orderId":', { status: 201, headers: { "Content-Type": "application/json" } });
    await expect(postCheckout(attempt, { fetch: async () => truncated })).rejects.toMatchObject({
      reason: { kind: "network" },
    });
  });
});

describe("resultOf", () => {
  it("throws the status, error code and Retry-After of a 409", () => {
    const response = reply(409, { error: "in_progress", message: "still running" }, { "Retry-After": "1" });
    try {
      resultOf(response, { error: "in_progress", message: "still running" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(CheckoutFailure);
      expect((err as CheckoutFailure).reason).toEqual({
        kind: "http",
        status: 409,
        code: "in_progress",
        retryAfterMs: 1000,
      });
      expect((err as CheckoutFailure).message).toBe("still running");
    }
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:03 GMT", now)).toBe(3000);
  });
});
