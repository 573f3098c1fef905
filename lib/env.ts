import "server-only";
import { z } from "zod";
import { STRIPE_MAX_NETWORK_RETRIES, STRIPE_TIMEOUT_MS, worstCaseStripeCallMs } from "./payments/limits";

/**
 * Every variable the project reads, parsed once and failing loudly with the
 * variable's name (t3-env style). docs/contract.md §6 is the contract.
 */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

const port = (fallback: number) =>
  z.coerce.number().int().min(0).max(65535).default(fallback);

const schema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: port(3000),
    DATABASE_URL: z
      .string()
      .trim()
      .min(1)
      .optional()
      .refine((v) => v === undefined || isPostgresUrl(v), {
        message: "must be a postgres:// or postgresql:// URL, e.g. postgresql://user:pass@127.0.0.1:5432/checkout",
      }),
    DATA_DIR: z.string().min(1).default(".data"),
    EMBEDDED_PG_PORT: port(54329),
    STRIPE_SECRET_KEY: z
      .string()
      .default("sk_test_emulator")
      .refine((v) => /^(sk|rk)_test_\w+$/.test(v), {
        message: "must be a Stripe test-mode key (sk_test_...): this reference app never runs against live mode",
      }),
    STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).optional(),
    STRIPE_EMULATOR_PORT: port(12111),
    /** Per-attempt timeout and retries of the Stripe SDK: they bound how long an owner can work. */
    STRIPE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(STRIPE_TIMEOUT_MS),
    STRIPE_MAX_NETWORK_RETRIES: z.coerce.number().int().min(0).max(5).default(STRIPE_MAX_NETWORK_RETRIES),
    IDEMPOTENCY_IN_PROGRESS_TTL_MS: z.coerce.number().int().positive().default(90_000),
    IDEMPOTENCY_RETENTION_HOURS: z.coerce.number().int().min(24).max(48).default(24),
    SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    /** Run the reconciler and the expiry cleanup inside each app process this often (0: off; use cron instead). */
    MAINTENANCE_INTERVAL_MS: z.coerce.number().int().min(0).default(0),
    /** DEMO ONLY: serves the lab's and the benchmarks' checkout without idempotency. */
    LAB_NAIVE_ENDPOINT: z.enum(["0", "1"]).default("0").transform((v) => v === "1"),
  })
  .superRefine((env, ctx) => {
    const minTtl = worstCaseStripeCallMs(env.STRIPE_TIMEOUT_MS, env.STRIPE_MAX_NETWORK_RETRIES);
    if (env.IDEMPOTENCY_IN_PROGRESS_TTL_MS <= minTtl) {
      ctx.addIssue({
        code: "custom",
        path: ["IDEMPOTENCY_IN_PROGRESS_TTL_MS"],
        message: `must exceed the Stripe client's worst-case call time (${minTtl} ms), or a duplicate could retake a claim whose owner is still charging`,
      });
    }
  });

export type Env = z.infer<typeof schema> & {
  /** Where the SDK sends requests; undefined means api.stripe.com. */
  stripeApiBase: string | undefined;
  usesStripeEmulator: boolean;
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const input = Object.fromEntries(
    Object.entries(source).filter(([, v]) => v !== undefined && v !== ""),
  );
  const result = schema.safeParse(input);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "(env)"}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const env = result.data;
  const isEmulatorKey = env.STRIPE_SECRET_KEY === "sk_test_emulator";
  const stripeApiBase =
    env.STRIPE_API_BASE ?? (isEmulatorKey ? `http://127.0.0.1:${env.STRIPE_EMULATOR_PORT}` : undefined);
  const usesStripeEmulator = stripeApiBase !== undefined && LOOPBACK.has(new URL(stripeApiBase).hostname);
  return { ...env, stripeApiBase, usesStripeEmulator };
}

function isPostgresUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "postgres:" || url.protocol === "postgresql:") && url.hostname !== "";
  } catch {
    return false;
  }
}

let cached: Env | undefined;
/** The process's configuration, parsed on first use. */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
