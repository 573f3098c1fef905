import { MutationObserver, QueryClient } from "@tanstack/query-core";
import { describe, expect, it } from "vitest";
import { idempotentMutation } from "./mutation";

const attempt = { key: "0b6f7a52-5d0e-4c1f-9a2b-3c4d5e6f7a8b", bodyJson: '{"amount":100}', createdAt: 0 };
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

describe("idempotentMutation", () => {
  it("sends the attempt until a final answer and parses it, once, with TanStack's own retries off", async () => {
    const replies = [json(409, { error: "in_progress" }), json(201, { id: "o1" })];
    const sent: string[] = [];
    const clients: QueryClient[] = [];
    const client = new QueryClient();
    const observer = new MutationObserver(
      client,
      idempotentMutation({
        mutationKey: ["pay"],
        url: "/api/pay",
        parse: (answer) => ({ status: answer.status, body: answer.body }),
        beforeEachTry: (_attempt, context) => void clients.push(context.client),
        poll: {
          random: () => 0,
          sleep: async () => undefined,
          fetch: async (_url, init) => {
            sent.push(new Headers(init?.headers).get("idempotency-key") ?? "");
            return replies.shift()!;
          },
        },
      }),
    );
    expect(await observer.mutate(attempt)).toEqual({ status: 201, body: { id: "o1" } });
    expect(sent).toEqual([attempt.key, attempt.key]);
    expect(clients).toEqual([client, client]);
    expect(observer.getCurrentResult().failureCount).toBe(0);
  });

  it("fails with the refusal the parser throws, without a second try", async () => {
    let tries = 0;
    const observer = new MutationObserver(
      new QueryClient(),
      idempotentMutation({
        mutationKey: ["pay"],
        url: "/api/pay",
        parse: (answer) => {
          if (answer.status !== 201) throw new Error(`refused: ${answer.status}`);
          return answer.body;
        },
        poll: { fetch: async () => (tries++, json(422, { error: "idempotency_key_reuse" })) },
      }),
    );
    await expect(observer.mutate(attempt)).rejects.toThrow("refused: 422");
    expect(tries).toBe(1);
  });
});
