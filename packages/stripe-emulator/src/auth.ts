import { stripeError, type ApiResponse } from "./responses";

export type AuthResult = { ok: true; apiKey: string; publishable: boolean } | { ok: false; response: ApiResponse };

/**
 * Test mode only: an `sk_test_` secret key or an `rk_test_` restricted key
 * (Stripe accepts both; a restricted key holds the permissions it was minted
 * with, restricted-keys.ts), as
 * Bearer (what stripe-node sends) or as the Basic-auth user name (what curl -u
 * sends). A live key is refused so that a misconfigured app never believes it
 * is talking to real Stripe.
 */
export function authenticate(header: string | undefined): AuthResult {
  const key = keyFromHeader(header);
  if (key === null) {
    return denied(
      "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
    );
  }
  if (!/^(sk|rk|pk)_test_\S+$/.test(key)) {
    return denied(
      `Invalid API Key provided: ${redact(key)}. The Stripe emulator accepts only test-mode keys (sk_test_..., rk_test_... or pk_test_...).`,
    );
  }
  return { ok: true, apiKey: key, publishable: key.startsWith("pk_") };
}

function keyFromHeader(header: string | undefined): string | null {
  const [scheme, value] = (header ?? "").trim().split(/\s+/, 2);
  if (!value) return null;
  if (/^bearer$/i.test(scheme ?? "")) return value;
  if (/^basic$/i.test(scheme ?? "")) return Buffer.from(value, "base64").toString("utf8").split(":")[0] || null;
  return null;
}

/** Never echo a whole secret back, as Stripe does not. */
function redact(key: string): string {
  return key.length <= 12 ? `${key.slice(0, 3)}****` : `${key.slice(0, 8)}****${key.slice(-4)}`;
}

function denied(message: string): AuthResult {
  return { ok: false, response: stripeError(401, { type: "invalid_request_error", message }) };
}

/**
 * The account a publishable key belongs to is its secret key's: `pk_test_X`
 * is the publishable key of `sk_test_X` (the emulator's own pair is
 * `sk_test_emulator` / `pk_test_emulator`), so a browser paying with an
 * account's publishable key lands in that account's ledger.
 */
export function secretKeyOf(apiKey: string): string {
  return apiKey.startsWith("pk_test_") ? `sk_test_${apiKey.slice("pk_test_".length)}` : apiKey;
}

/**
 * Stripe's two kinds of key open different doors: a publishable key only
 * what Stripe.js does in the browser (here: create a ConfirmationToken), a
 * secret key everything else. Null when the key may make this call.
 */
export function wrongKind(publishable: boolean, publishableRoute: boolean): ApiResponse | null {
  if (publishable && !publishableRoute)
    return stripeError(401, {
      type: "invalid_request_error",
      message:
        "This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys.",
    });
  if (!publishable && publishableRoute)
    return stripeError(400, {
      type: "invalid_request_error",
      message:
        "ConfirmationTokens are created by Stripe.js with a publishable key (pk_test_...). On a server, use POST /v1/test_helpers/confirmation_tokens.",
    });
  return null;
}
