import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether the request carries `Authorization: Bearer <token>`. Compared as
 * SHA-256 digests in constant time, so neither the length nor a prefix of
 * the token leaks through response timing.
 */
export function hasBearerToken(request: Request, token: string): boolean {
  const sent = /^Bearer +(\S+) *$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (sent === undefined) return false;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(sent), digest(token));
}
