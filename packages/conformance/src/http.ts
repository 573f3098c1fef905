import { randomUUID } from "node:crypto";
import type { Target } from "./target";

/** An answer as received: its status, headers and body bytes, compared byte for byte. */
export interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** What a request carries: the subject's headers, the key (null: none) and the body. */
export interface Sent {
  subject: Record<string, string>;
  key: string | null;
  body: unknown;
  signal?: AbortSignal;
}

export function keyOf(target: Target): string {
  return (target.newKey ?? randomUUID)();
}

export async function send(target: Target, sent: Sent): Promise<Answer> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...target.headers,
    ...sent.subject,
  };
  if (sent.key !== null) headers[target.keyHeader ?? "Idempotency-Key"] = sent.key;
  const response = await fetch(target.url, {
    method: target.method ?? "POST",
    headers,
    body: typeof sent.body === "string" ? sent.body : JSON.stringify(sent.body),
    redirect: "manual",
    signal: sent.signal,
  });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

/** Retry-After in seconds (a number), or null when absent or not a number of seconds. */
export function retryAfter(answer: Answer): number | null {
  const value = answer.headers.get("retry-after");
  if (value === null || !/^\d+$/.test(value.trim())) return null;
  return Number(value);
}

/**
 * Sends the same request until it is answered neither 409 (in progress) nor
 * 503 (try again), waiting as each says in Retry-After (a second when it says
 * nothing), within `settleMs`: the answer the endpoint stored for the key,
 * once its attempt is over.
 */
export async function settle(target: Target, sent: Sent): Promise<Answer> {
  const deadline = Date.now() + (target.settleMs ?? 60_000);
  for (;;) {
    const answer = await send(target, sent);
    if (answer.status !== 409 && answer.status !== 503) return answer;
    if (Date.now() > deadline) return answer;
    const seconds = Math.min(retryAfter(answer) ?? 1, 5);
    await new Promise((resolve) => setTimeout(resolve, Math.max(seconds * 1000, 100)));
  }
}

export function describe(answer: Answer): string {
  const text = answer.body.toString("utf8");
  return `${answer.status} ${text.length > 120 ? `${text.slice(0, 117)}...` : text}`;
}

export function sameAnswer(a: Answer, b: Answer): boolean {
  return a.status === b.status && a.body.equals(b.body);
}
