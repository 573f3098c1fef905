import { describe, expect, it } from "vitest";
import { sendUntilAnswered } from "./idempotent-fetch";
import { RequestFailure } from "./request-failure";

const request = { url: "/api/pay", key: "0b6f7a52-5d0e-4c1f-9a2b-3c4d5e6f7a8b", bodyJson: '{"amount":100}' };
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

/** Scripted replies; every wait is recorded and skipped, so the test observes the policy, not a clock. */
function server(replies: Array<Response | Error>) {
  const sent: Array<{ key: string | null; body: unknown }> = [];
  const waits: number[] = [];
  const retries: number[] = [];
  const options = {
    random: () => 0,
    sleep: async (ms: number) => void waits.push(ms),
    onRetry: (retry: number) => void retries.push(retry),
    fetch: async (_url: RequestInfo | URL, init?: RequestInit) => {
      sent.push({ key: new Headers(init?.headers).get("idempotency-key"), body: init?.body });
      const reply = replies.shift() ?? new Error("no more replies scripted");
      if (reply instanceof Error) throw reply;
      return reply;
    },
  };
  return { sent, waits, retries, options };
}

describe("sendUntilAnswered", () => {
  it("answers a 409 naming another conflict than in_progress at once: the same key would meet it again", async () => {
    const { sent, options } = server([json(409, { error: "checkout_has_payment", key: "k" }), json(201, {})]);
    const answer = await sendUntilAnswered(request, options);
    expect(answer).toMatchObject({ status: 409, body: { error: "checkout_has_payment", key: "k" } });
    expect(sent).toHaveLength(1);
  });

  it("polls 409, 429 and 503 with the same key and bytes, honouring Retry-After, until a final answer", async () => {
    const { sent, waits, retries, options } = server([
      json(409, { error: "in_progress" }, { "Retry-After": "1" }),
      json(429, { error: "rate_limited" }, { "Retry-After": "2" }),
      new TypeError("Failed to fetch"),
      json(503, { error: "unavailable" }),
      json(201, { id: "o1" }),
    ]);
    const answer = await sendUntilAnswered(request, options);
    expect(answer).toMatchObject({ status: 201, body: { id: "o1" } });
    expect(sent).toHaveLength(5);
    expect(new Set(sent.map((s) => s.key))).toEqual(new Set([request.key]));
    expect(new Set(sent.map((s) => s.body))).toEqual(new Set([request.bodyJson]));
    expect(waits).toEqual([1_000, 2_000, 300, 300]);
    expect(retries).toEqual([1, 2, 3, 4]);
  });

  it("after a 409, waits on the server for a change instead of backing off, and backs off when it cannot", async () => {
    const { sent, waits, retries, options } = server([
      json(409, { error: "in_progress" }, { "Retry-After": "1" }),
      json(409, { error: "in_progress" }, { "Retry-After": "1" }),
      json(201, { id: "o1" }),
    ]);
    const changes = [false, true];
    const asked: string[] = [];
    const answer = await sendUntilAnswered(request, {
      ...options,
      waitForChange: async (sentRequest, failure) => {
        asked.push(`${sentRequest.key} ${failure.status}`);
        return changes.shift()!;
      },
    });
    expect(answer).toMatchObject({ status: 201, body: { id: "o1" } });
    expect(sent).toHaveLength(3);
    expect(asked).toEqual([`${request.key} 409`, `${request.key} 409`]);
    // The first wait learned nothing and the backoff (Retry-After) applied; the second saw the change: no sleep.
    expect(waits).toEqual([1_000]);
    expect(retries).toEqual([1, 2]);
  });

  it("returns a final refusal at once, without retrying", async () => {
    for (const status of [400, 401, 402, 422]) {
      const { sent, options } = server([json(status, { error: "no" }), json(201, {})]);
      expect((await sendUntilAnswered(request, options)).status).toBe(status);
      expect(sent).toHaveLength(1);
    }
  });

  it("throws the last failure once the next wait would pass the budget", async () => {
    const { sent, options } = server([json(503, { error: "unavailable" }, { "Retry-After": "2" }), json(201, {})]);
    const failed = sendUntilAnswered(request, { ...options, startedAt: 0, now: () => 58_500 });
    await expect(failed).rejects.toMatchObject({ reason: { kind: "http", status: 503, retryAfterMs: 2_000 } });
    expect(sent).toHaveLength(1);
  });

  it("sends nothing when the check before a try refuses, and stops retrying once its signal aborts", async () => {
    const refused = server([json(201, {})]);
    const notSent = new RequestFailure({ kind: "not_sent", detail: "other subject" }, "no");
    await expect(
      sendUntilAnswered(request, { ...refused.options, beforeEachTry: () => Promise.reject(notSent) }),
    ).rejects.toBe(notSent);
    expect(refused.sent).toHaveLength(0);

    const closing = new AbortController();
    const stopped = server([json(409, { error: "in_progress" }), json(201, {})]);
    const failed = sendUntilAnswered(request, {
      ...stopped.options,
      signal: closing.signal,
      sleep: async () => closing.abort(),
    });
    await expect(failed).rejects.toMatchObject({ reason: { kind: "http", status: 409 } });
    expect(stopped.sent).toHaveLength(1);
  });

  it("treats a 2xx whose body was cut off as a lost response, and retries it", async () => {
    const { sent, options } = server([new Response('{"id":', { status: 201 }), json(201, { id: "o1" })]);
    expect((await sendUntilAnswered(request, options)).body).toEqual({ id: "o1" });
    expect(sent).toHaveLength(2);
  });
});
