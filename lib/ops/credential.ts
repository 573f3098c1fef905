import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import { sealData, unsealData } from "iron-session";
import { cookieName, secureCookies } from "../secure-cookies";

/**
 * The operator's credential, OPS_TOKEN, apart from the shopper's session:
 * `Authorization: Bearer <OPS_TOKEN>` for the API, and for the page a cookie
 * of its own, sealed with the token (iron-session, as the shopper's session
 * is), issued once the operator typed the token and their name. Changing the
 * token signs every operator out. Its name is the shopper's session's rule:
 * `__Host-ops_operator`, Secure, over https, `ops_operator` over plain http
 * (lib/secure-cookies.ts).
 */
export const OPERATOR_COOKIE = "ops_operator";

/** The operator's cookie for a request (its headers; its URL, for a route): its name, and whether it is Secure. */
export function operatorCookie(headers: Headers, url?: URL): { name: string; secure: boolean } {
  const secure = secureCookies(headers, url);
  return { name: cookieName(OPERATOR_COOKIE, secure), secure };
}

/** A working day: an operator signs in again the next morning. */
export const OPERATOR_TTL_SECONDS = 12 * 3600;

export interface Operator {
  name: string;
}

/** The typed token against OPS_TOKEN, compared as SHA-256 digests in constant time. */
export function isOpsToken(given: string, token: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(token));
}

export function sealOperator(operator: Operator, token: string): Promise<string> {
  return sealData(operator, { password: passwordOf(token), ttl: OPERATOR_TTL_SECONDS });
}

/** The operator a cookie names, or null for none, a forged one, or one past its time. */
export async function operatorOf(seal: string | undefined, token: string): Promise<Operator | null> {
  if (!seal) return null;
  try {
    const data = await unsealData<Partial<Operator>>(seal, { password: passwordOf(token), ttl: OPERATOR_TTL_SECONDS });
    return typeof data.name === "string" && data.name !== "" ? { name: data.name } : null;
  } catch {
    return null;
  }
}

/** iron-session wants 32+ characters; OPS_TOKEN has them (it is refused weaker), hashed so its form does not matter. */
function passwordOf(token: string): string {
  return createHash("sha256").update(`ops-operator:${token}`).digest("hex");
}
