import { MutationObserver, QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { CheckoutFailure } from "./checkout-failure";
import { checkoutMutation } from "./checkout-mutation";
import type { PaymentResult } from "./payment-client";
import { sessionQuery } from "./queries";

const attempt = {
  key: "0b6f7a52-5d0e-4c1f-9a2b-3c4d5e6f7a8b",
  bodyJson: '{"items":[{"sku":"tee-classic","quantity":1}],"paymentMethod":"pm_card_visa"}',
  createdAt: 0,
};
const paid = { orderId: "o1", status: "paid", amountCents: 2500, currency: "usd", paymentIntentId: "pi_1" };

type Reply = Response | Error;
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

/** Runs the real mutation (the package's polling fetch under TanStack's MutationObserver) against scripted replies. */
async function pay(
  replies: Reply[],
  options: { elapsedAtStartMs?: number; attempt?: typeof attempt & { subject?: string } } = {},
) {
  const sent: Array<{ key: string | null; body: unknown }> = [];
  const client = new QueryClient();
  client.setQueryData(sessionQuery.queryKey, { customerId: "c1" });
  const startedAt = Date.now() - (options.elapsedAtStartMs ?? 0);
  const observer = new MutationObserver(
    client,
    checkoutMutation({
      startedAt,
      random: () => 0, // the shortest waits (300 ms, or Retry-After), to keep the test quick
      fetch: async (_url, init) => {
        sent.push({ key: new Headers(init?.headers).get("idempotency-key"), body: init?.body });
        const reply = replies.shift() ?? new Error("no more replies scripted");
        if (reply instanceof Error) throw reply;
        return reply;
      },
    }),
  );
  const result: { data?: PaymentResult; error?: unknown } = await observer.mutate(options.attempt ?? attempt).then(
    (data) => ({ data }),
    (error: unknown) => ({ error }),
  );
  return { ...result, sent };
}

describe("the checkout mutation", () => {
  it("retries 409 and 503 with the same key and body until the payment's outcome arrives", async () => {
    const { data, sent } = await pay([
      json(409, { error: "in_progress" }, { "Retry-After": "0" }),
      json(503, { error: "payment_unavailable" }, { "Retry-After": "0" }),
      json(201, paid),
    ]);
    expect(data).toEqual({ kind: "paid", order: paid });
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((s) => s.key))).toEqual(new Set([attempt.key]));
    expect(new Set(sent.map((s) => s.body))).toEqual(new Set([attempt.bodyJson]));
  });

  it("treats 429 rate_limited like 503: the same key and body again, after Retry-After", async () => {
    const { data, sent } = await pay([
      json(429, { error: "rate_limited", retryAfterSeconds: 0 }, { "Retry-After": "0" }),
      json(201, paid),
    ]);
    expect(data).toEqual({ kind: "paid", order: paid });
    expect(sent).toHaveLength(2);
    expect(new Set(sent.map((s) => s.key))).toEqual(new Set([attempt.key]));
    expect(new Set(sent.map((s) => s.body))).toEqual(new Set([attempt.bodyJson]));
  });

  it("retries a lost connection", async () => {
    const { data, sent } = await pay([new TypeError("Failed to fetch"), json(201, paid)]);
    expect(data).toEqual({ kind: "paid", order: paid });
    expect(sent).toHaveLength(2);
  });

  it("never retries a decline", async () => {
    const { data, sent } = await pay([
      json(402, { error: "card_declined", declineCode: "generic_decline", message: "Declined." }),
    ]);
    expect(data).toEqual({
      kind: "declined",
      error: "card_declined",
      declineCode: "generic_decline",
      message: "Declined.",
    });
    expect(sent).toHaveLength(1);
  });

  it("never retries 400, 401 or 422", async () => {
    for (const status of [400, 401, 422]) {
      const { error, sent } = await pay([json(status, { error: "nope", message: "no" }), json(201, paid)]);
      expect((error as CheckoutFailure).status).toBe(status);
      expect(sent).toHaveLength(1);
    }
  });

  it("gives up when the next wait would pass the 60 s budget", async () => {
    const { error, sent } = await pay(
      [json(503, { error: "payment_unavailable" }, { "Retry-After": "2" }), json(201, paid)],
      {
        elapsedAtStartMs: 58_500,
      },
    );
    expect((error as CheckoutFailure).status).toBe(503);
    expect(sent).toHaveLength(1);
  });

  it("never sends an attempt under another customer's session (a reload after the session was lost)", async () => {
    const { error, sent } = await pay([json(201, paid)], { attempt: { ...attempt, subject: "c0" } });
    expect((error as CheckoutFailure).reason.kind).toBe("not_sent");
    expect(sent).toHaveLength(0);
  });

  it("sends it under the session it was begun in", async () => {
    const { data, sent } = await pay([json(201, paid)], { attempt: { ...attempt, subject: "c1" } });
    expect(data).toEqual({ kind: "paid", order: paid });
    expect(sent).toHaveLength(1);
  });
});
