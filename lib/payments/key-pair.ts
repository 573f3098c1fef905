import type Stripe from "stripe";
import { raiseAlarm } from "../alarms";
import { isStripeError } from "./stripe-errors";

/**
 * Whether the publishable key (the browser's) and the secret key (the
 * shop's) are of one Stripe account. Of two, every token Stripe.js makes is
 * unknown to the shop's key, and every card payment fails as "No such
 * confirmation_token". Checked once when the shop is first asked whether it
 * is ready, and again on such a failure (docs/decisions/0019).
 */
export type KeyPairVerdict = "same_account" | "two_accounts" | "unknown";

export const KEYS_OF_TWO_ACCOUNTS =
  "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY belongs to another Stripe account than STRIPE_SECRET_KEY: every card payment fails with 'No such confirmation_token'. Set the publishable key of STRIPE_SECRET_KEY's account (Dashboard → Developers → API keys).";

/** A failure asks again no sooner than this after the last check. */
export const KEY_PAIR_RECHECK_MS = 60_000;

const NEXT_YEAR = () => String(new Date().getFullYear() + 1);

/**
 * Makes a ConfirmationToken as Stripe.js would, with the publishable key and
 * Stripe's test card (test mode only: the shop refuses live keys), and reads
 * it with the secret key: unknown to it means two accounts. Anything else
 * that goes wrong proves nothing (`unknown`).
 */
export async function probeKeyPair(
  stripe: Stripe,
  publishableKey: string,
  apiBase: string | null,
  send: typeof fetch = fetch,
): Promise<KeyPairVerdict> {
  let tokenId: string;
  try {
    const made = await send(`${apiBase ?? "https://api.stripe.com"}/v1/confirmation_tokens`, {
      method: "POST",
      headers: { Authorization: `Bearer ${publishableKey}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        "payment_method_data[type]": "card",
        "payment_method_data[card][number]": "4242424242424242",
        "payment_method_data[card][exp_month]": "12",
        "payment_method_data[card][exp_year]": NEXT_YEAR(),
        "payment_method_data[card][cvc]": "123",
      }),
      signal: AbortSignal.timeout(5_000),
    });
    if (!made.ok) return "unknown";
    tokenId = ((await made.json()) as { id?: unknown }).id as string;
    if (typeof tokenId !== "string") return "unknown";
  } catch {
    return "unknown";
  }
  try {
    await stripe.confirmationTokens.retrieve(tokenId);
    return "same_account";
  } catch (err) {
    return isStripeError(err, "StripeInvalidRequestError") && err.code === "resource_missing"
      ? "two_accounts"
      : "unknown";
  }
}

// On globalThis: Next bundles this module more than once, and the verdict is one per process.
const state = globalThis as unknown as {
  keyPair?: { verdict: KeyPairVerdict | null; checkedAt: number; running: Promise<KeyPairVerdict> | null };
};

/**
 * Runs the probe unless one ran within `KEY_PAIR_RECHECK_MS` (its verdict is
 * answered then) or one is running (it is shared). Two accounts raise the
 * alarm and are logged by `log`.
 */
export function checkKeyPair(
  probe: () => Promise<KeyPairVerdict>,
  log: (message: string) => void,
  now = Date.now(),
): Promise<KeyPairVerdict> {
  const current = (state.keyPair ??= { verdict: null, checkedAt: -Infinity, running: null });
  if (current.running) return current.running;
  if (current.verdict !== null && now - current.checkedAt < KEY_PAIR_RECHECK_MS)
    return Promise.resolve(current.verdict);
  current.checkedAt = now;
  current.running = probe()
    .catch((): KeyPairVerdict => "unknown")
    .then((verdict) => {
      // An inconclusive probe keeps what was known.
      if (verdict !== "unknown" || current.verdict === null) current.verdict = verdict;
      if (current.verdict === "two_accounts") {
        raiseAlarm("keys_of_two_accounts", KEYS_OF_TWO_ACCOUNTS);
        log(KEYS_OF_TWO_ACCOUNTS);
      }
      return current.verdict;
    })
    .finally(() => {
      current.running = null;
    });
  return current.running;
}

/** What the last check found: the reason to show while the keys are of two accounts, else null. */
export function keyPairProblem(): string | null {
  return state.keyPair?.verdict === "two_accounts" ? KEYS_OF_TWO_ACCOUNTS : null;
}

/**
 * Whether a credential Stripe does not know may be held against the shopper
 * (the card-testing brake): not while the keys are known to be of two
 * accounts, when every shopper's token is unknown through no doing of theirs.
 */
export function unknownCredentialsAreTheShoppers(): boolean {
  return state.keyPair?.verdict !== "two_accounts";
}

/** Whether the last check ran (a verdict, or one running). */
export function keyPairChecked(): boolean {
  return state.keyPair !== undefined;
}

/** Forgets the verdict (tests). */
export function forgetKeyPair(): void {
  state.keyPair = undefined;
}

/** A stored answer that names a token Stripe does not know: what keys of two accounts look like at the checkout. */
export function namesUnknownToken(statusCode: number, body: string): boolean {
  if (statusCode !== 402) return false;
  try {
    const parsed = JSON.parse(body) as { error?: unknown; code?: unknown };
    return parsed.error === "payment_failed" && parsed.code === "resource_missing";
  } catch {
    return false;
  }
}
