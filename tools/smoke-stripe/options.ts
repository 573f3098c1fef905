import { parseArgs } from "node:util";

/** What `npm run smoke:stripe` was asked to do, or the one line refusing it. */
export interface SmokeOptions {
  app: URL;
  /** How long the refund journey waits for the shop to record a refund made at Stripe. */
  refundWaitMs: number;
  /** How long one step of a browser journey (a page, the provider's page) may take. */
  stepTimeoutMs: number;
  /** Absent: the provider's record is not checked and the refund is skipped. */
  stripe: { secretKey: string; apiBase: string | undefined } | null;
}

export type Parsed = { kind: "run"; options: SmokeOptions } | { kind: "help" } | { kind: "refused"; message: string };

/** Long enough for a shop that hears of a refund only through its events catch-up (default 60 s) and a maintenance tick. */
export const DEFAULT_REFUND_WAIT_SECONDS = 180;
/** Long enough for a slow test-mode page on a loaded machine. */
export const DEFAULT_STEP_TIMEOUT_SECONDS = 30;

export const USAGE = `Usage: npm run smoke:stripe -- --app <url> [--refund-wait <seconds>] [--step-timeout <seconds>]

Walks the main journeys through a running shop, as a shopper would: pay,
decline, 3-D Secure completed and failed on the provider's page (Chromium),
a replay of one idempotency key, and a refund made at Stripe. One line per
journey; exit 1 when any fails, 2 when refused.

  --app <url>              the shop, e.g. http://localhost:3000 (required)
  --refund-wait <seconds>  how long to wait for the shop to record the refund
                           (default ${DEFAULT_REFUND_WAIT_SECONDS})
  --step-timeout <seconds> how long one step in the browser may take, such as
                           Pay leading to the provider's page
                           (default ${DEFAULT_STEP_TIMEOUT_SECONDS})
  --help                   this text

Environment (optional):
  STRIPE_SECRET_KEY  the shop's Stripe test key (sk_test_/rk_test_): checks each
                     attempt's PaymentIntent at Stripe and makes the refund;
                     unset, only what the shop says is checked and the refund
                     is skipped
  STRIPE_API_BASE    where that key's Stripe is, for the local emulator
                     (e.g. http://127.0.0.1:12111); unset: api.stripe.com
  CHROMIUM_PATH      the Chromium to drive (default: the system's)

See docs/stripe-test-mode.md.`;

const EMULATOR_KEY = "sk_test_emulator";

export function parseSmokeArgs(argv: string[], env: Record<string, string | undefined>): Parsed {
  let values: { app?: string; "refund-wait"?: string; "step-timeout"?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        app: { type: "string" },
        "refund-wait": { type: "string" },
        "step-timeout": { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return { kind: "refused", message: `${(err as Error).message} (see --help)` };
  }
  if (values.help) return { kind: "help" };

  if (!values.app)
    return {
      kind: "refused",
      message: "--app: required: the shop's URL, e.g. npm run smoke:stripe -- --app http://localhost:3000",
    };
  const app = URL.canParse(values.app) ? new URL(values.app) : null;
  if (!app || (app.protocol !== "http:" && app.protocol !== "https:"))
    return { kind: "refused", message: `--app: ${values.app} is not an http(s) URL, e.g. http://localhost:3000` };

  const wait = seconds(values["refund-wait"], DEFAULT_REFUND_WAIT_SECONDS);
  if (wait === null) return { kind: "refused", message: "--refund-wait: a whole number of seconds from 1 to 3600" };
  const step = seconds(values["step-timeout"], DEFAULT_STEP_TIMEOUT_SECONDS);
  if (step === null) return { kind: "refused", message: "--step-timeout: a whole number of seconds from 1 to 3600" };

  const secretKey = env.STRIPE_SECRET_KEY || undefined;
  const apiBase = env.STRIPE_API_BASE || undefined;
  if (secretKey && !/^(sk|rk)_test_/.test(secretKey))
    return {
      kind: "refused",
      message:
        "STRIPE_SECRET_KEY: must be a test-mode key (sk_test_… or rk_test_…): the smoke makes payments and refunds",
    };
  if (secretKey === EMULATOR_KEY && !apiBase)
    return {
      kind: "refused",
      message: `STRIPE_API_BASE: required with the emulator's key ${EMULATOR_KEY}: the emulator's URL, e.g. http://127.0.0.1:12111`,
    };
  if (apiBase && !/^https?:\/\//.test(apiBase))
    return { kind: "refused", message: `STRIPE_API_BASE: ${apiBase} is not an http(s) URL` };

  return {
    kind: "run",
    options: {
      app: new URL(app.origin),
      refundWaitMs: wait * 1000,
      stepTimeoutMs: step * 1000,
      stripe: secretKey ? { secretKey, apiBase } : null,
    },
  };
}

/** A whole number of seconds from 1 to 3600, `fallback` when absent; null when out of range. */
function seconds(value: string | undefined, fallback: number): number | null {
  const n = value === undefined ? fallback : Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 3600 ? n : null;
}
