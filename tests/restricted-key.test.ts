import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { permissionsFor } from "@/lib/payments/restricted-key";
import { freePort, TEST_METRICS_TOKEN, testAppEnv } from "./app-server";
import { scrape } from "./helpers/metrics";
import { createOwnDatabase, type OwnDatabase } from "./helpers/own-database";
import { cart, newKey, Shopper, waitFor } from "./helpers/shopper";
import { journeyLines, smoke } from "./helpers/smoke";

/**
 * The shop on a restricted key (`rk_test_…`) minted with exactly the
 * documented permissions (lib/payments/restricted-key.ts, with those
 * `smoke:stripe` needs): `npm run smoke:stripe` passes every journey
 * (the refund made at Stripe recorded through the events catch-up, no
 * webhook configured). Then on a key without Events: read: payments still
 * work and readiness stays green, while the refused catch-up raises the
 * alarm (an error in the log, `checkout_alarms`, the reason in
 * `/api/health` for the metrics token).
 */
let emulator: StripeEmulator;
/** The shop that takes SEPA Direct Debit and iDEAL prices in EUR, on a database seeded in it. */
let euro: OwnDatabase;
const apps: AppProcess[] = [];
beforeAll(async () => {
  emulator = await startStripeEmulator({ port: 0 });
  euro = await createOwnDatabase("restrictedkey", "eur");
});
afterAll(async () => {
  for (const app of apps) await app.stop();
  await emulator?.close();
  await euro?.drop();
});

/** A shop on `key`, its maintenance loop and catch-up every half second; its log lines kept. */
async function shopOn(key: string, overrides: Record<string, string> = {}) {
  const port = await freePort();
  const lines: string[] = [];
  const env = testAppEnv({
    databaseUrl: overrides.SHOP_CURRENCY === "eur" ? euro.url : inject("databaseUrl"),
    stripeApiBase: emulator.url,
    stripeKey: key,
    overrides: {
      MAINTENANCE_INTERVAL_MS: "500",
      EVENTS_CATCH_UP_INTERVAL_MS: "500",
      HEALTH_PROVIDER_CACHE_MS: "0",
      ...overrides,
    },
  });
  const app = await startApp({ port, env, log: (line) => lines.push(line) });
  apps.push(app);
  return { url: app.url, lines };
}

const health = async (url: string, token?: string) => {
  const response = await fetch(`${url}/api/health`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe("a restricted key", () => {
  it("with exactly the documented permissions: smoke:stripe passes every journey", async () => {
    const permissions = permissionsFor(["smoke"]);
    expect(permissions).toEqual({
      payment_intents: "write",
      refunds: "write",
      events: "read",
      confirmation_tokens: "write",
    });
    const control = new EmulatorClient(emulator.url);
    const { id: key } = await control.restrictedKey(permissions);
    // Every method the shop can take, so the debit and the bank redirect are paid on the same key.
    const shop = await shopOn(key, { PAYMENT_METHOD_TYPES: "card,sepa_debit,ideal", SHOP_CURRENCY: "eur" });

    // Stripe's days for a debit pass on the emulator's clock, moved on while the smoke waits for it.
    const clock = setInterval(() => void control.advanceClock(30).catch(() => undefined), 1_000);
    const run = await smoke(["--app", shop.url], { STRIPE_SECRET_KEY: key, STRIPE_API_BASE: emulator.url }).finally(
      () => clearInterval(clock),
    );
    expect(run.code, run.output).toBe(0);
    expect(journeyLines(run.stdout).map(([name, outcome]) => `${name} ${outcome}`)).toEqual(
      ["pay", "decline", "3ds-complete", "3ds-fail", "replay", "refund", "sepa", "ideal"].map((j) => `${j} passed`),
    );
    const ready = await health(shop.url, TEST_METRICS_TOKEN);
    expect(ready).toMatchObject({ status: 200, body: { ok: true, payments: true, alarms: [] } });
    expect((await new EmulatorClient(emulator.url).stats()).forbidden).toBe(0); // nothing it needs was refused
  }, 240_000);

  it("without Events: read: payments still work, readiness stays green, the refused catch-up raises the alarm", async () => {
    const control = new EmulatorClient(emulator.url);
    const { id: key } = await control.restrictedKey({ payment_intents: "write", refunds: "write" });
    const forbiddenBefore = (await control.stats()).forbidden;
    const shop = await shopOn(key);

    const shopper = await Shopper.arrive(shop.url);
    const paid = await shopper.checkout(newKey(), cart());
    expect(paid.status).toBe(201);

    const alarmed = await waitFor("the refused catch-up's alarm", async () => {
      const ready = await health(shop.url, TEST_METRICS_TOKEN);
      return (ready.body.alarms as string[] | undefined)?.length ? ready : null;
    });
    expect(alarmed.status).toBe(200);
    expect(alarmed.body).toMatchObject({ ok: true, db: true, payments: true });
    expect(alarmed.body.reason).toBeUndefined();
    expect(alarmed.body.alarms).toEqual([expect.stringMatching(/403 on \/v1\/events.*Events: read/)]);
    expect((await control.stats()).forbidden).toBeGreaterThan(forbiddenBefore); // the refusal really happened
    // Anonymous readiness does not tell the reason.
    expect((await health(shop.url)).body).not.toHaveProperty("alarms");
    expect((await scrape(shop.url)).get('checkout_alarms{kind="stripe_refused"}')).toBe(1);
    const logged = shop.lines.flatMap((line) =>
      line.startsWith("{") ? [JSON.parse(line) as Record<string, unknown>] : [],
    );
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 50, event: "provider_refused", status: 403, path: "/v1/events", alarm: true }),
    );

    // Payments go on while the alarm stands.
    const again = await shopper.checkout(newKey(), cart());
    expect(again.status).toBe(201);
  }, 120_000);
});
