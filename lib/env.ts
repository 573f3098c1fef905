/**
 * Every variable the app reads, parsed once and failing loudly with the
 * variable's name (t3-env style). docs/contract.md §6 lists them, with their
 * meaning and default, and `.env.example` names each (tests/variables.test.ts).
 */
import "server-only";
import { z } from "zod";
import { behindTransactionPooler, POOLER_PARAMETER } from "./db/pooler";
import { STRIPE_MAX_NETWORK_RETRIES, STRIPE_TIMEOUT_MS, worstCaseStripeCallMs } from "./payments/limits";
import { secretWeakness } from "./security/secret-strength";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);
/** The emulator's default signing secret (docs/contract.md, "The Stripe emulator"). */
export const EMULATOR_WEBHOOK_SECRET = "whsec_emulator";
/** Where the emulator serves its Stripe.js stand-in (packages/stripe-emulator/src/stripe-js.ts). */
const EMULATOR_STRIPE_JS_PATH = "/endive/stripe.js";
/**
 * Stripe's global rate limit, requests a second per account, reads and writes
 * together (docs.stripe.com/rate-limits): 25 in a sandbox (test mode), 100 live.
 */
/** The payment methods the shop can offer (PAYMENT_METHOD_TYPES): cards, SEPA Direct Debit, and two bank redirects. */
export const PAYMENT_METHOD_TYPES = ["card", "sepa_debit", "ideal", "bancontact"] as const;
export type PaymentMethodType = (typeof PAYMENT_METHOD_TYPES)[number];
/** The currencies the shop can price its catalogue in (SHOP_CURRENCY); docs/decisions/0035. */
export const SHOP_CURRENCIES = ["usd", "eur"] as const;
export type ShopCurrency = (typeof SHOP_CURRENCIES)[number];
/** Stripe takes SEPA Direct Debit, iDEAL and Bancontact in EUR only; a card in either of the shop's currencies. */
const EUR_ONLY: readonly PaymentMethodType[] = ["sepa_debit", "ideal", "bancontact"];

/** The methods of `types` that Stripe does not take in `currency`. */
export function methodsRefusing(types: readonly PaymentMethodType[], currency: ShopCurrency): PaymentMethodType[] {
  return currency === "eur" ? [] : types.filter((type) => EUR_ONLY.includes(type));
}

export const STRIPE_REQUESTS_PER_SECOND = { test: 25, live: 100 } as const;

/**
 * Stripe removes an idempotency key once it is at least 24 hours old
 * (docs.stripe.com/api/idempotent_requests); an attempt is settled for good,
 * under its own keys, an hour before that at the latest.
 */
const MAX_ATTEMPT_DEADLINE_MS = 23 * 3_600_000;

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
/** A secret that must be 32+ random bytes (see lib/security/secret-strength.ts). */
const secret = () =>
  z
    .string()
    .trim()
    .optional()
    .superRefine((value, ctx) => {
      const weakness = value === undefined ? null : secretWeakness(value);
      if (weakness) ctx.addIssue({ code: "custom", message: weakness });
    });
/** A limit: how many per RATE_LIMIT_WINDOW_SECONDS (see lib/abuse/limits.ts). */
const limit = (fallback: number) => z.coerce.number().int().min(1).max(1_000_000).default(fallback);

const schema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: port(3000),
    /** The address the server listens on; unset: `localhost` for the demo and dev, every interface for `npm start`. */
    HOST: z.string().trim().min(1).optional(),
    DATABASE_URL: z
      .string()
      .trim()
      .min(1)
      .optional()
      .refine((v) => v === undefined || isPostgresUrl(v), {
        message: "must be a postgres:// or postgresql:// URL, e.g. postgresql://user:pass@127.0.0.1:5432/checkout",
      })
      .refine((v) => v === undefined || !isPostgresUrl(v) || poolerFlagIsValid(v), {
        message: "pgbouncer= must be true (behind a pooler in transaction mode) or false",
      }),
    DATA_DIR: z.string().min(1).default(".data"),
    EMBEDDED_PG_PORT: port(54329),
    STRIPE_SECRET_KEY: z
      .string()
      .default("sk_test_emulator")
      .refine((v) => !/^pk_/.test(v), {
        message:
          "is a publishable key (pk_...): it belongs in NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY; put the secret key sk_test_... (or rk_test_...) here",
        abort: true,
      })
      .refine((v) => /^(sk|rk)_test_\w+$/.test(v), {
        message:
          "must be a Stripe test-mode secret or restricted key (sk_test_... or rk_test_...): this reference app never runs against live mode",
      }),
    /** What Stripe.js in the shopper's browser identifies the account with. Default only with the emulator; see parseEnv. */
    NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: z
      .string()
      .trim()
      .optional()
      .refine((v) => v === undefined || !/^(sk|rk)_/.test(v), {
        message:
          "is a secret key: it would be sent to every browser. Put the publishable key pk_test_... here (Dashboard → Developers → API keys) and the secret one in STRIPE_SECRET_KEY",
        abort: true,
      })
      .refine((v) => v === undefined || /^pk_test_\w+$/.test(v), {
        message:
          "must be a Stripe test-mode publishable key (pk_test_...): this reference app never runs against live mode",
      }),
    STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).optional(),
    STRIPE_EMULATOR_PORT: port(12111),
    /** Verifies `POST /api/webhooks/stripe` (docs/contract.md, "Webhooks"). Default only with the emulator; see parseEnv. */
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .trim()
      .regex(
        /^whsec_\S+$/,
        "must be a webhook signing secret (whsec_...): `stripe listen` prints one, the Dashboard shows an endpoint's",
      )
      .optional(),
    /** Per-attempt timeout and retries of the Stripe SDK: they bound how long an owner can work. */
    STRIPE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(STRIPE_TIMEOUT_MS),
    PAYMENT_METHOD_TYPES: z
      .string()
      .default("card")
      .transform((value) =>
        value
          .split(",")
          .map((type) => type.trim())
          .filter((type) => type !== ""),
      )
      .refine((types) => types.every((type) => (PAYMENT_METHOD_TYPES as readonly string[]).includes(type)), {
        message: `a comma-separated list of ${PAYMENT_METHOD_TYPES.join(", ")} (cards are always on)`,
      })
      // Cards are always on: a shop that offers a method also takes cards.
      .transform((types) => [...new Set(["card", ...types])] as PaymentMethodType[]),
    /** The one currency the catalogue is priced in, and so every checkout and order (docs/decisions/0035). */
    SHOP_CURRENCY: z.enum(SHOP_CURRENCIES).default("usd"),
    STRIPE_MAX_NETWORK_RETRIES: z.coerce.number().int().min(0).max(5).default(STRIPE_MAX_NETWORK_RETRIES),
    IDEMPOTENCY_IN_PROGRESS_TTL_MS: z.coerce.number().int().positive().default(90_000),
    IDEMPOTENCY_RETENTION_HOURS: z.coerce.number().int().min(24).max(48).default(24),
    /** Names this shop in every PaymentIntent's metadata (`shop`); recorded in the database, which every process agrees with (lib/shop-identity.ts). */
    SHOP_ID: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9._-]{1,40}$/, {
        message: "must be 1 to 40 letters, digits, '.', '_' or '-', e.g. shop-production",
      })
      .optional(),
    /** A claim released after an unknown outcome is retaken by the client's retry no sooner than this. */
    IDEMPOTENCY_RETAKE_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
    /** Seals the session cookie. Required in production; `npm run demo` and the tests generate one. */
    SESSION_SECRET: secret(),
    /** The secret before a rotation: sessions it sealed are still read until it is removed. */
    SESSION_SECRET_PREVIOUS: secret(),
    /** Run the reconciler and the expiry cleanup inside each app process this often (0: off; use cron instead). */
    MAINTENANCE_INTERVAL_MS: z.coerce.number().int().min(0).default(15_000),
    /** With the maintenance loop on: read Stripe's event list back into the webhook inbox this often (0: off). */
    EVENTS_CATCH_UP_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
    /** After this an attempt is settled for good: a success stands, anything else is cancelled and stored as a failure. */
    PAYMENT_ATTEMPT_DEADLINE_MS: z.coerce.number().int().positive().default(1_800_000),
    /** How long an attempt may wait for the shopper's 3-D Secure authentication before it is cancelled. */
    PAYMENT_ACTION_TIMEOUT_MS: z.coerce.number().int().positive().default(1_800_000),
    /** DEMO ONLY: serves the lab's and the benchmarks' checkout without idempotency. */
    LAB_NAIVE_ENDPOINT: z
      .enum(["0", "1"])
      .default("0")
      .transform((v) => v === "1"),
    /** The public origin(s) browsers use, comma-separated: the Origin check's allow-list (see lib/origin.ts). */
    APP_ORIGIN: z
      .string()
      .optional()
      .refine((v) => v === undefined || parseOrigins(v) !== null, {
        message:
          "must be one or more origins separated by commas, e.g. https://shop.example,https://www.shop.example (scheme and host, no path)",
      }),
    /** 1: a proxy in front sets X-Forwarded-Host, and the Origin check believes it. Never set it without such a proxy. */
    TRUST_PROXY: z
      .enum(["0", "1"])
      .default("0")
      .transform((v) => v === "1"),
    /** Proxies in front that each append the peer they saw to X-Forwarded-For: the n-th entry from the right is the client (lib/abuse/client-address.ts). */
    TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    /** A header the proxy in front sets to the client's address (e.g. CF-Connecting-IP), replacing any the client sent. */
    CLIENT_IP_HEADER: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9-]+$/, "must be one header name, e.g. CF-Connecting-IP")
      .optional(),
    /** How long GET /api/health reuses its Stripe probe, so frequent probes do not spend the Stripe rate limit. */
    HEALTH_PROVIDER_CACHE_MS: z.coerce.number().int().min(0).max(300_000).default(10_000),
    /** GET /api/metrics requires `Authorization: Bearer <METRICS_TOKEN>`; required in production. */
    METRICS_TOKEN: secret(),
    /** The operator's page (/ops) and GET /api/ops/findings require it; without it both are 404. */
    OPS_TOKEN: secret(),
    /** With the maintenance loop on: audit the last day against Stripe's record this often, one instance at a time (0: off). */
    AUDIT_INTERVAL_MS: z.coerce.number().int().min(0).default(3_600_000),
    /** The app's connections to PostgreSQL, per instance. */
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(10),
    /** How long to wait for a connection (new or from the pool) before the request fails with 503. */
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
    /** PostgreSQL cancels any one statement of the app's that runs longer than this. */
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
    /** The window the limits below count in. */
    RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    /** Multiplies every limit below (tests and the demo raise it; in production with real Stripe at most PRODUCTION_MAX_RATE_LIMIT_SCALE). */
    RATE_LIMIT_SCALE: z.coerce.number().int().min(1).max(100_000).default(1),
    RATE_LIMIT_SESSIONS_PER_ADDRESS: limit(20),
    RATE_LIMIT_CHECKOUTS_PER_ADDRESS: limit(60),
    RATE_LIMIT_CHECKOUTS_PER_SESSION: limit(10),
    RATE_LIMIT_RETURNS_PER_ADDRESS: limit(60),
    RATE_LIMIT_RETURNS_PER_SESSION: limit(20),
    /** Content-Security-Policy violation reports one address may send (POST /api/csp-report); past it 429, nothing logged. */
    RATE_LIMIT_CSP_REPORTS_PER_ADDRESS: limit(30),
    /** Operator sign-ins (POST /api/ops/session) one address may try per window: guessing OPS_TOKEN stays hopeless. */
    RATE_LIMIT_OPS_SIGNINS_PER_ADDRESS: limit(10),
    /** Open (unfinished) checkout attempts one customer may have at once; a fresh key beyond it is 429. */
    CHECKOUT_MAX_OPEN_ATTEMPTS: limit(3),
    /** Declined payments per session, per address and per card (its fingerprint) in RATE_LIMIT_DECLINE_WINDOW_SECONDS; past any, 429 too_many_declines. */
    RATE_LIMIT_DECLINES_PER_SESSION: limit(10),
    RATE_LIMIT_DECLINES_PER_ADDRESS: limit(30),
    /**
     * Off (0) by default: on, every fresh checkout first looks its card up at Stripe, a second
     * provider call before the charge (docs/decisions/0016-declines-per-card.md).
     */
    RATE_LIMIT_DECLINES_PER_CARD: z.coerce.number().int().min(0).max(1_000_000).default(0),
    RATE_LIMIT_DECLINE_WINDOW_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3_600),
    /** Calls to Stripe one instance starts for shoppers (fresh attempts, retakes, card reads) in any second; each address gets a fair share. */
    PROVIDER_FRESH_ATTEMPTS_PER_SECOND: limit(10),
    /** Calls to Stripe one process starts for the shop itself (webhooks, reconciler, events catch-up, audit) in any second; they wait for a place. */
    PROVIDER_BACKGROUND_CALLS_PER_SECOND: limit(5),
    /** After Stripe answers 429, fresh attempts are shed this long (known keys still replay); 0 turns it off. */
    PROVIDER_BREAKER_SECONDS: z.coerce.number().int().min(0).max(300).default(5),
    /** The least severe log line written (pino's levels). */
    LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
    /** Turns on OpenTelemetry traces over OTLP/HTTP (lib/tracing/start.ts reads it with the other OTEL_* variables). */
    OTEL_EXPORTER_OTLP_ENDPOINT: z
      .string()
      .regex(/^https?:\/\/\S+$/, "an http(s) URL, e.g. http://localhost:4318")
      .optional(),
  })
  .superRefine((env, ctx) => {
    if (env.CLIENT_IP_HEADER && env.TRUSTED_PROXY_HOPS > 0) {
      ctx.addIssue({
        code: "custom",
        path: ["CLIENT_IP_HEADER"],
        message:
          "set either CLIENT_IP_HEADER or TRUSTED_PROXY_HOPS, not both: the client's address comes from one place",
      });
    }
    const refusing = methodsRefusing(env.PAYMENT_METHOD_TYPES, env.SHOP_CURRENCY);
    if (refusing.length > 0) {
      ctx.addIssue({
        code: "custom",
        path: ["PAYMENT_METHOD_TYPES"],
        message: `${refusing.join(", ")} take${refusing.length === 1 ? "s" : ""} EUR only at Stripe, and SHOP_CURRENCY is ${env.SHOP_CURRENCY}: set SHOP_CURRENCY=eur, or take ${refusing.length === 1 ? "it" : "them"} out of PAYMENT_METHOD_TYPES`,
      });
    }
    const minTtl = worstCaseStripeCallMs(env.STRIPE_TIMEOUT_MS, env.STRIPE_MAX_NETWORK_RETRIES);
    if (env.IDEMPOTENCY_IN_PROGRESS_TTL_MS <= minTtl) {
      ctx.addIssue({
        code: "custom",
        path: ["IDEMPOTENCY_IN_PROGRESS_TTL_MS"],
        message: `must exceed the Stripe client's worst-case call time (${minTtl} ms), or a duplicate could retake a claim whose owner is still charging`,
      });
    }
    if (env.PAYMENT_ATTEMPT_DEADLINE_MS > MAX_ATTEMPT_DEADLINE_MS) {
      ctx.addIssue({
        code: "custom",
        path: ["PAYMENT_ATTEMPT_DEADLINE_MS"],
        message: `must be at most ${MAX_ATTEMPT_DEADLINE_MS} (23 hours): Stripe forgets an idempotency key once it is 24 hours old, and an attempt settled after its keys are forgotten could be charged again`,
      });
    }
    for (const token of ["OPS_TOKEN", "METRICS_TOKEN"] as const) {
      const value = env[token];
      if (value && (value === env.SESSION_SECRET || value === env.SESSION_SECRET_PREVIOUS)) {
        ctx.addIssue({
          code: "custom",
          path: [token],
          message:
            "must differ from SESSION_SECRET: a token is typed and sent in headers, and whoever holds the secret could seal sessions and sign the shop's intents; make another with openssl rand -hex 32",
        });
      }
    }
    if (env.PAYMENT_ATTEMPT_DEADLINE_MS <= env.IDEMPOTENCY_IN_PROGRESS_TTL_MS) {
      ctx.addIssue({
        code: "custom",
        path: ["PAYMENT_ATTEMPT_DEADLINE_MS"],
        message:
          "must exceed IDEMPOTENCY_IN_PROGRESS_TTL_MS: an attempt is settled for good only after its owner can no longer be working",
      });
    }
  });

/** The variables of the schema, as named in the environment. */
export const ENV_VARIABLES: readonly string[] = Object.keys(schema.shape);

export type Env = Omit<z.infer<typeof schema>, "STRIPE_WEBHOOK_SECRET" | "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY"> & {
  STRIPE_WEBHOOK_SECRET: string;
  /** Null with real Stripe until it is set: the checkout page then says so instead of taking a card. */
  NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: string | null;
  /** The emulator's Stripe.js stand-in, which the checkout page loads from the emulator; null: Stripe's own. */
  stripeJsUrl: string | null;
  /** SHOP_ID, or the identity the database records once a process has read it (lib/shop-identity.ts); never derived. */
  shopId: string | null;
  /** Where the SDK sends requests; undefined means api.stripe.com. */
  stripeApiBase: string | undefined;
  usesStripeEmulator: boolean;
  /** Calls to Stripe this process starts in any second, for shoppers and for the shop's own work (docs/decisions/0020). */
  providerPerSecond: { shoppers: number; background: number };
  /** APP_ORIGIN parsed: normalised origins (`https://shop.example`); empty means "the Host the request was sent to". */
  appOrigins: string[];
  /** Which Stripe settings were given rather than defaulted to the emulator's (production refuses the defaults, lib/startup.ts). */
  given: { STRIPE_SECRET_KEY: boolean; STRIPE_WEBHOOK_SECRET: boolean };
};

/** What a refusal for want of a shop identity says to do (lib/shop-identity.ts). */
export const SHOP_ID_ADVICE =
  "name this shop (e.g. SHOP_ID=shop-production), different for every environment sharing a Stripe account";

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const input = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(input);
  if (!result.success) {
    // One line per problem, each starting with the variable to change.
    const lines = result.error.issues.map((i) => `${i.path.join(".") || "(env)"}: ${i.message}`);
    throw new ConfigError(lines.join("\n"));
  }
  const env = result.data;
  // A transaction pooler refuses the timeout as a startup parameter (lib/db/pooler.ts): it must come from the server.
  if (input.DATABASE_STATEMENT_TIMEOUT_MS !== undefined && behindTransactionPooler(env.DATABASE_URL)) {
    throw new ConfigError(
      "DATABASE_STATEMENT_TIMEOUT_MS: not sent behind a transaction pooler (pgbouncer=true in DATABASE_URL): unset it and " +
        "set the timeout on the server for the app's role instead (ALTER ROLE <user> SET statement_timeout = '15s')",
    );
  }
  const isEmulatorKey = env.STRIPE_SECRET_KEY === "sk_test_emulator";
  const stripeApiBase =
    env.STRIPE_API_BASE ?? (isEmulatorKey ? `http://127.0.0.1:${env.STRIPE_EMULATOR_PORT}` : undefined);
  const usesStripeEmulator = stripeApiBase !== undefined && LOOPBACK.has(new URL(stripeApiBase).hostname);
  // The secret key travels in every request: in the clear only to this machine's emulator.
  if (stripeApiBase !== undefined && !usesStripeEmulator && new URL(stripeApiBase).protocol !== "https:") {
    throw new ConfigError(
      "STRIPE_API_BASE: must be https:// unless it is the emulator on this machine (127.0.0.1 or localhost): the secret key would cross the network in the clear",
    );
  }
  // Real Stripe's webhooks carry outcomes the app may never hear otherwise (a
  // late success to refund, a shopper who vanished): without their secret the
  // app would refuse every delivery, so it refuses to start instead.
  if (!env.STRIPE_WEBHOOK_SECRET && !usesStripeEmulator) {
    throw new ConfigError(
      "STRIPE_WEBHOOK_SECRET: required with real Stripe: run `stripe listen --forward-to localhost:3000/api/webhooks/stripe` " +
        "and use the whsec_... it prints, or the signing secret of the Dashboard endpoint",
    );
  }
  // The lab's naive lane charges on every request and its fault switches are
  // global to the emulator: never against a provider that charges for real.
  if (env.LAB_NAIVE_ENDPOINT && !usesStripeEmulator) {
    throw new ConfigError(
      "LAB_NAIVE_ENDPOINT: 1 only with the local Stripe emulator (the lab charges without idempotency); unset it or set 0",
    );
  }
  const providerPerSecond = {
    // RATE_LIMIT_SCALE raises the emulator's budgets with every limit; Stripe's own rate it cannot raise.
    shoppers: env.PROVIDER_FRESH_ATTEMPTS_PER_SECOND * (usesStripeEmulator ? env.RATE_LIMIT_SCALE : 1),
    background: env.PROVIDER_BACKGROUND_CALLS_PER_SECOND * (usesStripeEmulator ? env.RATE_LIMIT_SCALE : 1),
  };
  const stripeRate = STRIPE_REQUESTS_PER_SECOND[env.STRIPE_SECRET_KEY.includes("_live_") ? "live" : "test"];
  if (!usesStripeEmulator && providerPerSecond.shoppers + providerPerSecond.background > stripeRate) {
    throw new ConfigError(
      `PROVIDER_FRESH_ATTEMPTS_PER_SECOND: with PROVIDER_BACKGROUND_CALLS_PER_SECOND at most ${stripeRate} a second together, ` +
        `Stripe's rate for this key's mode (they are ${providerPerSecond.shoppers} + ${providerPerSecond.background}); ` +
        "with several instances, divide it between them",
    );
  }
  const STRIPE_WEBHOOK_SECRET = env.STRIPE_WEBHOOK_SECRET ?? EMULATOR_WEBHOOK_SECRET;
  return {
    ...env,
    STRIPE_WEBHOOK_SECRET,
    // With the emulator, the publishable twin of the secret key (its account's); with Stripe, none until it is set.
    NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY:
      env.NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY ??
      (usesStripeEmulator ? `pk_test_${env.STRIPE_SECRET_KEY.replace(/^(sk|rk)_test_/, "")}` : null),
    stripeJsUrl:
      usesStripeEmulator && stripeApiBase ? `${new URL(stripeApiBase).origin}${EMULATOR_STRIPE_JS_PATH}` : null,
    shopId: env.SHOP_ID ?? null,
    stripeApiBase,
    usesStripeEmulator,
    providerPerSecond,
    appOrigins: env.APP_ORIGIN ? (parseOrigins(env.APP_ORIGIN) ?? []) : [],
    given: {
      STRIPE_SECRET_KEY: input.STRIPE_SECRET_KEY !== undefined,
      STRIPE_WEBHOOK_SECRET: input.STRIPE_WEBHOOK_SECRET !== undefined,
    },
  };
}

/** `https://a.example, https://b.example` → normalised origins; null if any entry is not a bare http(s) origin. */
function parseOrigins(value: string): string[] | null {
  const entries = value
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  if (entries.length === 0) return null;
  const origins: string[] = [];
  for (const entry of entries) {
    try {
      const url = new URL(entry);
      const bare = url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
      if (!/^https?:$/.test(url.protocol) || !bare) return null;
      origins.push(url.origin);
    } catch {
      return null;
    }
  }
  return origins;
}

function isPostgresUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "postgres:" || url.protocol === "postgresql:") && url.hostname !== "";
  } catch {
    return false;
  }
}

function poolerFlagIsValid(value: string): boolean {
  const flag = new URL(value).searchParams.get(POOLER_PARAMETER);
  return flag === null || flag === "true" || flag === "false";
}

let cached: Env | undefined;
/** The process's configuration, parsed on first use. */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
