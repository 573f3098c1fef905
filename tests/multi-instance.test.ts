import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { startTestApp, type TestApp } from "./app-server";
import { sleep } from "@/lib/sleep";

/**
 * Three app instances on one database and one emulator, as behind a load
 * balancer. Every attempt is sent several times, to different instances, at
 * once, while the emulator is slow enough that the copies overlap; each copy
 * keeps retrying like a browser until it gets a final answer. Exactly one
 * PaymentIntent per attempt, no attempt left in progress, no order pending.
 */
const ATTEMPTS = 500;
const CONCURRENT_ATTEMPTS = 25;
const CUSTOMERS = 10;

let emulator: StripeEmulator;
const apps: TestApp[] = [];

beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
  for (let i = 0; i < 3; i++) apps.push(await startTestApp({}, emulator));
  await new EmulatorClient(emulator.url).faults({ latencyMs: 150 });
}, 120_000);

afterAll(async () => {
  for (const app of apps) await app.stop();
  await emulator.close();
});

async function session(url: string): Promise<{ cookie: string; customerId: string }> {
  const response = await fetch(`${url}/api/session`, { method: "POST" });
  const cookie = response.headers.get("set-cookie")!.split(";")[0]!;
  return { cookie, customerId: ((await response.json()) as { customerId: string }).customerId };
}

/** One copy of an attempt, retried like a browser until a final answer. */
async function sendUntilFinal(
  url: string,
  cookie: string,
  key: string,
  body: string,
): Promise<{ status: number; orderId: string; tries: number }> {
  for (let tries = 1; ; tries++) {
    const response = await fetch(`${url}/api/checkout`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "idempotency-key": key },
      body,
    });
    const json = (await response.json()) as { orderId?: string };
    if (response.status !== 409 && response.status !== 503)
      return { status: response.status, orderId: json.orderId ?? "", tries };
    if (tries > 200) throw new Error(`attempt ${key} never finished`);
    await sleep(50 + Math.random() * 150);
  }
}

async function ledger(): Promise<Array<{ id: string; status: string; metadata: Record<string, string> }>> {
  const all: Array<{ id: string; status: string; metadata: Record<string, string> }> = [];
  let after = "";
  for (;;) {
    const response = await fetch(
      `${emulator.url}/v1/payment_intents?limit=100${after ? `&starting_after=${after}` : ""}`,
      {
        headers: { authorization: "Bearer sk_test_emulator" },
      },
    );
    const page = (await response.json()) as { data: typeof all; has_more: boolean };
    all.push(...page.data);
    if (!page.has_more) return all;
    after = page.data[page.data.length - 1]!.id;
  }
}

describe("several app instances serving the same shoppers", () => {
  it(`charge each of ${ATTEMPTS} attempts exactly once, each sent 3–5 times across 3 instances at once`, async () => {
    const shoppers = await Promise.all(Array.from({ length: CUSTOMERS }, (_, i) => session(apps[i % 3]!.url)));
    const attempts = Array.from({ length: ATTEMPTS }, (_, i) => ({
      key: randomUUID(),
      shopper: shoppers[i % CUSTOMERS]!,
      copies: 3 + (i % 3),
      body: JSON.stringify({ items: [{ sku: "tote-bag", quantity: 1 + (i % 4) }], paymentMethod: "pm_card_visa" }),
    }));

    let sent = 0;
    let retries = 0;
    const queue = [...attempts];
    const worker = async () => {
      for (let attempt = queue.shift(); attempt; attempt = queue.shift()) {
        const { key, shopper, copies, body } = attempt;
        const results = await Promise.all(
          Array.from({ length: copies }, (_, c) => sendUntilFinal(apps[c % 3]!.url, shopper.cookie, key, body)),
        );
        sent += copies;
        retries += results.reduce((n, r) => n + r.tries - 1, 0);
        expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
        expect(new Set(results.map((r) => r.orderId)).size).toBe(1);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_ATTEMPTS }, worker));

    const intents = (await ledger()).filter((pi) => shoppers.some((s) => s.customerId === pi.metadata.customerId));
    const perKey = new Map<string, number>();
    for (const pi of intents)
      perKey.set(pi.metadata.idempotencyKey!, (perKey.get(pi.metadata.idempotencyKey!) ?? 0) + 1);
    expect(intents).toHaveLength(ATTEMPTS);
    expect(intents.every((pi) => pi.status === "succeeded")).toBe(true);
    expect([...perKey.values()].every((n) => n === 1)).toBe(true);
    expect(attempts.every((a) => perKey.has(a.key))).toBe(true);

    const db = new pg.Client({ connectionString: inject("databaseUrl") });
    await db.connect();
    const ids = shoppers.map((s) => s.customerId);
    const { rows } = await db.query<{ status: string; n: number }>(
      `select status::text, count(*)::int as n from orders where customer_id = any($1::uuid[]) group by status`,
      [ids],
    );
    const stuck = await db.query<{ n: number }>(
      `select count(*)::int as n from idempotency_keys where subject_id = any($1::text[]) and status = 'in_progress'`,
      [ids],
    );
    await db.end();
    expect(rows).toEqual([{ status: "paid", n: ATTEMPTS }]);
    expect(stuck.rows[0]!.n).toBe(0);

    const stats = await new EmulatorClient(emulator.url).stats();
    expect(stats.delayed).toBeGreaterThanOrEqual(ATTEMPTS); // the latency really applied
    console.log(
      JSON.stringify({
        attempts: ATTEMPTS,
        copiesSent: sent,
        retriesAfter409or503: retries,
        charges: intents.length,
        stuck: stuck.rows[0]!.n,
      }),
    );
  }, 600_000);
});
