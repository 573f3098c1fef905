import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { freePort, TEST_METRICS_TOKEN, testAppEnv } from "./app-server";
import { newKey, Shopper, tokenCart } from "./helpers/shopper";

/**
 * A publishable key of another account than the secret key: every token the
 * shopper's Stripe.js makes is unknown to the shop's key. The first readiness
 * probe finds it out and says so, in the reason and an alarm; a checkout with
 * such a token ends at once, stored, instead of being retried.
 */
let emulator: StripeEmulator;
const apps: AppProcess[] = [];
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
});
afterAll(async () => {
  for (const app of apps) await app.stop();
  await emulator?.close();
});

async function account() {
  const secretKey = `sk_test_pair_${randomUUID().replaceAll("-", "")}`;
  await new EmulatorClient(emulator.url, { apiKey: secretKey }).reset();
  return { secretKey, publishableKey: secretKey.replace(/^sk_/, "pk_") };
}

async function shopOn(secretKey: string, publishableKey: string) {
  const lines: string[] = [];
  const env = testAppEnv({
    databaseUrl: inject("databaseUrl"),
    stripeApiBase: emulator.url,
    stripeKey: secretKey,
    overrides: { NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: publishableKey, HEALTH_PROVIDER_CACHE_MS: "0" },
  });
  const app = await startApp({ port: await freePort(), env, log: (line) => lines.push(line) });
  apps.push(app);
  return { url: app.url, lines };
}

const health = async (url: string, token?: string) => {
  const response = await fetch(`${url}/api/health`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** A card typed into Stripe.js, with this publishable key. */
async function typedCard(publishableKey: string): Promise<string> {
  const made = await fetch(`${emulator.url}/v1/confirmation_tokens`, {
    method: "POST",
    headers: { Authorization: `Bearer ${publishableKey}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": "4242424242424242",
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": String(new Date().getFullYear() + 1),
      "payment_method_data[card][cvc]": "123",
    }),
  });
  return ((await made.json()) as { id: string }).id;
}

describe("keys of two accounts", () => {
  it("are found at the first readiness probe, named in its reason and an alarm", async () => {
    const [shop, other] = [await account(), await account()];
    const app = await shopOn(shop.secretKey, other.publishableKey);

    const anonymous = await health(app.url);
    expect(anonymous.status).toBe(503);
    expect(anonymous.body).toMatchObject({ ok: false, db: true, payments: false });
    expect(String(anonymous.body.reason)).toMatch(
      /^NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY belongs to another Stripe account/,
    );
    const operator = await health(app.url, TEST_METRICS_TOKEN);
    expect(operator.body.alarms).toContainEqual(expect.stringMatching(/^NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY/));
    const logged = app.lines.flatMap((line) =>
      line.startsWith("{") ? [JSON.parse(line) as Record<string, unknown>] : [],
    );
    expect(logged).toContainEqual(expect.objectContaining({ level: 50, event: "keys_of_two_accounts", alarm: true }));

    // A token of the other account ends its attempt at once: a stored 402, replayed, nothing charged.
    const shopper = await Shopper.arrive(app.url);
    const key = newKey();
    const body = tokenCart(await typedCard(other.publishableKey));
    const answer = await shopper.checkout(key, body);
    expect(answer.status).toBe(402);
    expect(answer.body).toMatchObject({ error: "payment_failed", code: "resource_missing" });
    const retry = await shopper.checkout(key, body);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(answer.body);
    expect(await new EmulatorClient(emulator.url, { apiKey: shop.secretKey }).stat("charges")).toBe(0);
    // Not the shopper's doing: not counted toward too_many_declines while the keys are of two accounts.
    const db = new pg.Client({ connectionString: inject("databaseUrl") });
    await db.connect();
    const { rows } = await db.query<{ hits: string | null }>(
      `select sum(hits) as hits from admission_counters where rule = 'declines_per_session' and bucket = $1`,
      [shopper.customerId],
    );
    await db.end();
    expect(rows[0]?.hits ?? null).toBeNull();
  }, 120_000);

  it("of one account leave the shop ready", async () => {
    const own = await account();
    const app = await shopOn(own.secretKey, own.publishableKey);
    expect(await health(app.url)).toMatchObject({ status: 200, body: { ok: true, payments: true } });
  }, 120_000);
});
