import { randomBytes } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * Stripe-looking ids (`pi_`, `ch_`, `req_`): a prefix and random alphanumerics.
 * Random rather than sequential so tests cannot come to depend on the order.
 */
export function randomId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let out = "";
  // 62 does not divide 256, so this is slightly biased; fine for ids that only need to be unique.
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return `${prefix}${out}`;
}

export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
