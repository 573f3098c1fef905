import { stripeError, type ApiResponse } from "./responses";

export type AuthResult = { ok: true; apiKey: string } | { ok: false; response: ApiResponse };

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
  if (!/^(sk|rk)_test_\S+$/.test(key)) {
    return denied(
      `Invalid API Key provided: ${redact(key)}. The Stripe emulator accepts only test-mode keys (sk_test_... or rk_test_...).`,
    );
  }
  return { ok: true, apiKey: key };
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
