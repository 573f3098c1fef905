import { describe, expect, it } from "vitest";
import { ConfigError, parseEnv } from "./env";

/** Three strong secrets, as openssl rand -hex 32 makes them. */
const STRONG = "9f3c1e7a5b2d48c6a0e4f7b19d3c5a8e2b6f0d4c7a1e9b3f5d8c2a6e0b4f7d1c";
const OTHER_STRONG = "c7d1a9e3f5b2086d4e1c7a3f9b5d2e8a0c6f4b1d7e3a9c5f2b8d0e6a4c1f7b3d";
const THIRD_STRONG = "4b8e2f6a0c3d7e1b5f9a2c6e0d4b8f3a7c1e5d9b2f6a0c4e8d3b7f1a5c9e2d6b";

describe("configuration", () => {
  it("runs the demo with nothing set: emulator, embedded database, 90 s TTL, 24 h retention", () => {
    const env = parseEnv({});
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.stripeApiBase).toBe("http://127.0.0.1:12111");
    expect(env.usesStripeEmulator).toBe(true);
    expect(env.IDEMPOTENCY_IN_PROGRESS_TTL_MS).toBe(90_000);
    expect(env.IDEMPOTENCY_RETENTION_HOURS).toBe(24);
  });

  it("finishes abandoned attempts by default (maintenance every 15 s, 0 turns it off), with 30-minute deadlines", () => {
    expect(parseEnv({}).MAINTENANCE_INTERVAL_MS).toBe(15_000);
    expect(parseEnv({ MAINTENANCE_INTERVAL_MS: "0" }).MAINTENANCE_INTERVAL_MS).toBe(0);
    expect(parseEnv({}).PAYMENT_ATTEMPT_DEADLINE_MS).toBe(1_800_000);
    expect(parseEnv({}).PAYMENT_ACTION_TIMEOUT_MS).toBe(1_800_000);
  });

  it("reaches real Stripe with a real test key and no API base", () => {
    const env = parseEnv({
      STRIPE_SECRET_KEY: "sk_test_51abcDEF",
      STRIPE_WEBHOOK_SECRET: "whsec_abc123",
      NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: "pk_test_51abcDEF",
    });
    expect(env.stripeApiBase).toBeUndefined();
    expect(env.usesStripeEmulator).toBe(false);
    expect(env.STRIPE_WEBHOOK_SECRET).toBe("whsec_abc123");
  });

  it("defaults the webhook secret to the emulator's only when the emulator is used", () => {
    expect(parseEnv({}).STRIPE_WEBHOOK_SECRET).toBe("whsec_emulator");
    expect(() => parseEnv({ STRIPE_SECRET_KEY: "sk_test_51abcDEF" })).toThrow(
      /^STRIPE_WEBHOOK_SECRET: required with real Stripe: run `stripe listen/,
    );
  });

  it("defaults the publishable key to the emulator's twin of the secret key, and to none with real Stripe", () => {
    expect(parseEnv({}).NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY).toBe("pk_test_emulator");
    expect(parseEnv({}).stripeJsUrl).toBe("http://127.0.0.1:12111/endive/stripe.js");
    const worker = parseEnv({ STRIPE_SECRET_KEY: "sk_test_e2e_worker_1", STRIPE_API_BASE: "http://127.0.0.1:4000" });
    expect(worker.NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY).toBe("pk_test_e2e_worker_1");
    expect(worker.stripeJsUrl).toBe("http://127.0.0.1:4000/endive/stripe.js");
    const real = { STRIPE_SECRET_KEY: "sk_test_51abcDEF", STRIPE_WEBHOOK_SECRET: "whsec_abc" };
    expect(parseEnv(real)).toMatchObject({ NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: null, stripeJsUrl: null });
    const withKey = parseEnv({ ...real, NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: "pk_test_51abcDEF" });
    expect(withKey).toMatchObject({ NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: "pk_test_51abcDEF", stripeJsUrl: null });
  });

  it.each([
    [{ NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: "sk_test_abc" }, /^NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: is a secret key/],
    [{ NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: "rk_test_abc" }, /^NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: is a secret key/],
    [
      { NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: "pk_live_abc" },
      /^NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: must be a Stripe test-mode/,
    ],
    [
      { STRIPE_SECRET_KEY: "pk_test_abc" },
      /^STRIPE_SECRET_KEY: is a publishable key .*NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY/,
    ],
  ])("refuses a key of the wrong kind in one line naming the variable: %o", (source, message) => {
    expect(() => parseEnv(source)).toThrow(message);
    try {
      parseEnv(source);
    } catch (error) {
      expect((error as Error).message.split("\n")).toHaveLength(1);
    }
  });

  it.each([
    [{ DATABASE_URL: "not a url" }, "DATABASE_URL"],
    [{ DATABASE_URL: "mysql://localhost/db" }, "DATABASE_URL"],
    [{ STRIPE_SECRET_KEY: "sk_live_abc", STRIPE_API_BASE: "http://127.0.0.1:12111" }, "STRIPE_SECRET_KEY"],
    [{ STRIPE_SECRET_KEY: "pk_test_abc" }, "STRIPE_SECRET_KEY"],
    [{ STRIPE_API_BASE: "ftp://example" }, "STRIPE_API_BASE"],
    [{ STRIPE_API_BASE: "http://stripe-proxy.internal:8080" }, "STRIPE_API_BASE"],
    [{ PORT: "70000" }, "PORT"],
    [{ IDEMPOTENCY_RETENTION_HOURS: "12" }, "IDEMPOTENCY_RETENTION_HOURS"],
    [{ IDEMPOTENCY_RETENTION_HOURS: "49" }, "IDEMPOTENCY_RETENTION_HOURS"],
    [{ IDEMPOTENCY_IN_PROGRESS_TTL_MS: "30000" }, "IDEMPOTENCY_IN_PROGRESS_TTL_MS"],
    [{ SESSION_SECRET: "short" }, "SESSION_SECRET"],
    [{ SESSION_SECRET: "a".repeat(32) }, "SESSION_SECRET"],
    [{ SESSION_SECRET: "replace-with-64-hex-characters-from-openssl-rand-hex-32" }, "SESSION_SECRET"],
    [{ SESSION_SECRET_PREVIOUS: "a".repeat(64) }, "SESSION_SECRET_PREVIOUS"],
    [{ METRICS_TOKEN: "replace-with-a-long-random-token" }, "METRICS_TOKEN"],
    [{ DATABASE_POOL_SIZE: "0" }, "DATABASE_POOL_SIZE"],
    [{ DATABASE_STATEMENT_TIMEOUT_MS: "soon" }, "DATABASE_STATEMENT_TIMEOUT_MS"],
    [{ DATABASE_URL: "postgresql://app@127.0.0.1:6432/checkout?pgbouncer=yes" }, "DATABASE_URL"],
    [
      {
        DATABASE_URL: "postgresql://app@127.0.0.1:6432/checkout?pgbouncer=true",
        DATABASE_STATEMENT_TIMEOUT_MS: "15000",
      },
      "DATABASE_STATEMENT_TIMEOUT_MS",
    ],
    [{ RATE_LIMIT_SESSIONS_PER_ADDRESS: "0" }, "RATE_LIMIT_SESSIONS_PER_ADDRESS"],
    [{ CHECKOUT_MAX_OPEN_ATTEMPTS: "-1" }, "CHECKOUT_MAX_OPEN_ATTEMPTS"],
    [{ STRIPE_WEBHOOK_SECRET: "sk_test_oops" }, "STRIPE_WEBHOOK_SECRET"],
    [{ PAYMENT_ATTEMPT_DEADLINE_MS: "90000" }, "PAYMENT_ATTEMPT_DEADLINE_MS"],
    [{ PAYMENT_ATTEMPT_DEADLINE_MS: String(24 * 3_600_000) }, "PAYMENT_ATTEMPT_DEADLINE_MS"],
    [{ SESSION_SECRET: STRONG, OPS_TOKEN: STRONG }, "OPS_TOKEN"],
    [{ SESSION_SECRET: STRONG, METRICS_TOKEN: STRONG }, "METRICS_TOKEN"],
    [{ SESSION_SECRET: OTHER_STRONG, SESSION_SECRET_PREVIOUS: STRONG, OPS_TOKEN: STRONG }, "OPS_TOKEN"],
    [{ STRIPE_SECRET_KEY: "rk_live_abc", STRIPE_API_BASE: "http://127.0.0.1:12111" }, "STRIPE_SECRET_KEY"],
    [{ APP_ORIGIN: "shop.example" }, "APP_ORIGIN"],
    [{ APP_ORIGIN: "https://shop.example/checkout" }, "APP_ORIGIN"],
    [{ APP_ORIGIN: "https://shop.example,ftp://files.example" }, "APP_ORIGIN"],
    [{ TRUST_PROXY: "yes" }, "TRUST_PROXY"],
    [{ TRUSTED_PROXY_HOPS: "-1" }, "TRUSTED_PROXY_HOPS"],
    [{ CLIENT_IP_HEADER: "CF-Connecting-IP, X-Real-IP" }, "CLIENT_IP_HEADER"],
    [{ CLIENT_IP_HEADER: "CF-Connecting-IP", TRUSTED_PROXY_HOPS: "1" }, "CLIENT_IP_HEADER"],
    [{ METRICS_TOKEN: "short" }, "METRICS_TOKEN"],
    [{ OPS_TOKEN: "replace-with-a-long-random-token" }, "OPS_TOKEN"],
    [{ AUDIT_INTERVAL_MS: "hourly" }, "AUDIT_INTERVAL_MS"],
    [{ HEALTH_PROVIDER_CACHE_MS: "-1" }, "HEALTH_PROVIDER_CACHE_MS"],
    [{ SHOP_CURRENCY: "gbp" }, "SHOP_CURRENCY"],
    [{ PAYMENT_METHOD_TYPES: "card,sepa_debit" }, "PAYMENT_METHOD_TYPES"],
    [{ PAYMENT_METHOD_TYPES: "ideal", SHOP_CURRENCY: "usd" }, "PAYMENT_METHOD_TYPES"],
  ])("rejects %j with a message naming %s", (input, variable) => {
    expect(() => parseEnv(input)).toThrow(ConfigError);
    // One line, starting with the variable to change.
    expect(() => parseEnv(input)).toThrow(new RegExp(`^${variable}: [^\\n]+$`));
  });

  it("prices in USD unless told EUR, and refuses EUR-only methods in USD saying what to set", () => {
    expect(parseEnv({}).SHOP_CURRENCY).toBe("usd");
    expect(parseEnv({ SHOP_CURRENCY: "eur", PAYMENT_METHOD_TYPES: "card,sepa_debit,ideal,bancontact" })).toMatchObject({
      SHOP_CURRENCY: "eur",
      PAYMENT_METHOD_TYPES: ["card", "sepa_debit", "ideal", "bancontact"],
    });
    expect(parseEnv({ SHOP_CURRENCY: "eur" }).PAYMENT_METHOD_TYPES).toEqual(["card"]);
    expect(() => parseEnv({ PAYMENT_METHOD_TYPES: "card,sepa_debit,ideal" })).toThrow(
      /^PAYMENT_METHOD_TYPES: sepa_debit, ideal take EUR only at Stripe, and SHOP_CURRENCY is usd: set SHOP_CURRENCY=eur, or take them out of PAYMENT_METHOD_TYPES$/,
    );
    expect(() => parseEnv({ PAYMENT_METHOD_TYPES: "bancontact" })).toThrow(
      /^PAYMENT_METHOD_TYPES: bancontact takes EUR only at Stripe, and SHOP_CURRENCY is usd: set SHOP_CURRENCY=eur, or take it out/,
    );
  });

  it("refuses the lab's naive endpoint unless the provider is the local emulator, in one line naming it", () => {
    expect(parseEnv({ LAB_NAIVE_ENDPOINT: "1" }).LAB_NAIVE_ENDPOINT).toBe(true);
    const real = { STRIPE_SECRET_KEY: "sk_test_51abcDEF", STRIPE_WEBHOOK_SECRET: "whsec_abc123" };
    expect(() => parseEnv({ ...real, LAB_NAIVE_ENDPOINT: "1" })).toThrow(
      /^LAB_NAIVE_ENDPOINT: 1 only with the local Stripe emulator[^\n]+$/,
    );
    expect(parseEnv({ ...real, LAB_NAIVE_ENDPOINT: "0" }).LAB_NAIVE_ENDPOINT).toBe(false);
  });

  it("keeps the provider budgets within Stripe's rate for the key's mode with real Stripe; the emulator's scale with the limits", () => {
    const real = { STRIPE_SECRET_KEY: "sk_test_51abcDEF", STRIPE_WEBHOOK_SECRET: "whsec_abc123" };
    expect(parseEnv(real).providerPerSecond).toEqual({ shoppers: 10, background: 5 });
    // RATE_LIMIT_SCALE cannot raise Stripe's own rate.
    expect(parseEnv({ ...real, RATE_LIMIT_SCALE: "10" }).providerPerSecond).toEqual({ shoppers: 10, background: 5 });
    expect(
      parseEnv({ ...real, PROVIDER_FRESH_ATTEMPTS_PER_SECOND: "20", PROVIDER_BACKGROUND_CALLS_PER_SECOND: "5" }),
    ).toBeTruthy();
    expect(() =>
      parseEnv({ ...real, PROVIDER_FRESH_ATTEMPTS_PER_SECOND: "21", PROVIDER_BACKGROUND_CALLS_PER_SECOND: "5" }),
    ).toThrow(
      /^PROVIDER_FRESH_ATTEMPTS_PER_SECOND: with PROVIDER_BACKGROUND_CALLS_PER_SECOND at most 25 a second[^\n]+$/,
    );
    expect(parseEnv({ RATE_LIMIT_SCALE: "1000" }).providerPerSecond).toEqual({ shoppers: 10_000, background: 5_000 });
  });

  it("sizes the pool at 10 connections with connect and statement timeouts, and limits abuse by default", () => {
    const env = parseEnv({});
    expect([env.DATABASE_POOL_SIZE, env.DATABASE_CONNECT_TIMEOUT_MS, env.DATABASE_STATEMENT_TIMEOUT_MS]).toEqual([
      10, 5_000, 15_000,
    ]);
    expect(env.RATE_LIMIT_SCALE).toBe(1);
    expect(env.RATE_LIMIT_SESSIONS_PER_ADDRESS).toBe(20);
    expect(env.CHECKOUT_MAX_OPEN_ATTEMPTS).toBe(3);
    expect(parseEnv({ DATABASE_POOL_SIZE: "25" }).DATABASE_POOL_SIZE).toBe(25);
    // Behind a transaction pooler the statement timeout is the server's (lib/db/pooler.ts), so only its default is accepted.
    const pooled = "postgresql://app@127.0.0.1:6432/checkout?pgbouncer=true";
    expect(parseEnv({ DATABASE_URL: pooled }).DATABASE_URL).toBe(pooled);
  });

  it("names every weak variable on a line of its own", () => {
    const attempt = () => parseEnv({ SESSION_SECRET: "a".repeat(32), METRICS_TOKEN: "x".repeat(40) });
    expect(attempt).toThrow(/^SESSION_SECRET: .+\nMETRICS_TOKEN: .+$/);
  });

  it("bounds the attempt deadline below Stripe's 24-hour key retention, and takes 23 hours", () => {
    expect(() => parseEnv({ PAYMENT_ATTEMPT_DEADLINE_MS: String(23 * 3_600_000 + 1) })).toThrow(
      /^PAYMENT_ATTEMPT_DEADLINE_MS: must be at most 82800000 \(23 hours\): Stripe forgets an idempotency key/,
    );
    expect(parseEnv({ PAYMENT_ATTEMPT_DEADLINE_MS: String(23 * 3_600_000) }).PAYMENT_ATTEMPT_DEADLINE_MS).toBe(
      82_800_000,
    );
  });

  it("takes tokens of their own beside the session secret", () => {
    const env = parseEnv({ SESSION_SECRET: STRONG, OPS_TOKEN: OTHER_STRONG, METRICS_TOKEN: THIRD_STRONG });
    expect([env.OPS_TOKEN, env.METRICS_TOKEN]).toEqual([OTHER_STRONG, THIRD_STRONG]);
    expect(() => parseEnv({ SESSION_SECRET: STRONG, OPS_TOKEN: STRONG })).toThrow(
      /^OPS_TOKEN: must differ from SESSION_SECRET/,
    );
  });

  it("explains why the in-progress TTL must outlive the Stripe client", () => {
    expect(() => parseEnv({ IDEMPOTENCY_IN_PROGRESS_TTL_MS: "70000" })).toThrow(/worst-case call time \(70000 ms\)/);
  });

  it("accepts a restricted test key (rk_test_), which reaches Stripe like a secret test key", () => {
    const env = parseEnv({ STRIPE_SECRET_KEY: "rk_test_51abcDEF", STRIPE_WEBHOOK_SECRET: "whsec_abc123" });
    expect(env.STRIPE_SECRET_KEY).toBe("rk_test_51abcDEF");
    expect(env.stripeApiBase).toBeUndefined();
  });

  it("parses APP_ORIGIN once into normalised origins; none means the request's own host", () => {
    expect(parseEnv({}).appOrigins).toEqual([]);
    expect(parseEnv({ APP_ORIGIN: " https://shop.example/ , https://WWW.shop.example:8443" }).appOrigins).toEqual([
      "https://shop.example",
      "https://www.shop.example:8443",
    ]);
    expect(parseEnv({}).TRUST_PROXY).toBe(false);
    expect(parseEnv({ TRUST_PROXY: "1" }).TRUST_PROXY).toBe(true);
  });
});
