/**
 * Whether a configured secret (SESSION_SECRET, METRICS_TOKEN) is at least 32
 * random bytes, written as hex or base64 (`openssl rand -hex 32`,
 * `openssl rand -base64 32`). A passphrase, a placeholder copied from
 * .env.example, or 64 × "a" is not: whoever knows or guesses it can forge
 * every customer's session or read the metrics.
 */
export const MIN_SECRET_BYTES = 32;

/** A random 32-byte value has about 30 distinct bytes; fewer than this is a pattern, not randomness. */
const MIN_DISTINCT_BYTES = 16;

/** Words that mark a value as an example to replace, never a secret. */
const PLACEHOLDER = /replace|change|example|placeholder|secret|password|token|x{4}/i;

export const SECRET_ADVICE = `must be at least ${MIN_SECRET_BYTES} random bytes, hex or base64, the same on every instance (e.g. \`openssl rand -hex 32\`)`;

/** Null when strong; otherwise why not, as the rest of a line after the variable's name. */
export function secretWeakness(value: string): string | null {
  if (PLACEHOLDER.test(value)) return `is a placeholder: ${SECRET_ADVICE}`;
  const bytes = decode(value);
  if (!bytes) return `is neither hex nor base64: ${SECRET_ADVICE}`;
  if (bytes.length < MIN_SECRET_BYTES) return `is ${bytes.length} bytes: ${SECRET_ADVICE}`;
  if (new Set(bytes).size < MIN_DISTINCT_BYTES) return `is not random (a repeated pattern): ${SECRET_ADVICE}`;
  return null;
}

function decode(value: string): Buffer | null {
  if (/^[0-9a-f]+$/i.test(value) && value.length % 2 === 0) return Buffer.from(value, "hex");
  // Standard or URL-safe base64, padded or not.
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value) && value.replace(/=+$/, "").length % 4 !== 1) {
    return Buffer.from(value.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  }
  return null;
}
