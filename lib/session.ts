/**
 * Guest sessions: a sealed (encrypted and signed) cookie made by iron-session,
 * HttpOnly and SameSite=Lax. The customer id in it is the subject of every
 * idempotency key, so it comes only from here, never from a request body.
 */
import "server-only";
import { sealData, unsealData } from "iron-session";
import { cookies, headers } from "next/headers";
import type { PrismaClient } from "./generated/prisma/client";
import { ConfigError, env } from "./env";
import { cookieName, secureCookies } from "./secure-cookies";

interface SessionData {
  customerId?: string;
}

/** The cookie's name over plain http (the demo on http://localhost); `__Host-checkout_session` over https (lib/secure-cookies.ts). */
const COOKIE_NAME = "checkout_session";

/**
 * One lifetime for the sealed session and its cookie. The cookie's Max-Age is
 * 60 s shorter than the seal's, so a browser never sends a seal that has just
 * expired (which would read as "no session" mid-attempt).
 */
export const SESSION_TTL_SECONDS = 60 * 60 * 24 * 30;

/** The secrets a seal may be made with: the current one first, then the one before a rotation. */
function secrets(): string[] {
  const { SESSION_SECRET, SESSION_SECRET_PREVIOUS } = env();
  if (!SESSION_SECRET)
    throw new ConfigError("SESSION_SECRET: required to seal session cookies (npm run demo generates one)");
  return SESSION_SECRET_PREVIOUS ? [SESSION_SECRET, SESSION_SECRET_PREVIOUS] : [SESSION_SECRET];
}

const secureCookie = (request: Request) => secureCookies(request.headers, new URL(request.url));
const cookieNameFor = (request: Request) => cookieName(COOKIE_NAME, secureCookie(request));

/**
 * The customer a seal names, or null. The seal must carry its expiry (ms
 * since the epoch, covered by its HMAC) and not be past it: iron-session
 * alone accepts a seal made without one forever, and one up to a minute past
 * its expiry. Each secret is tried in turn, so a seal made before a rotation
 * (SESSION_SECRET_PREVIOUS) still opens.
 */
async function unsealCustomer(seal: string, now: number): Promise<string | null> {
  const expiration = Number(seal.split("*")[5] || NaN);
  if (!(expiration > now)) return null;
  // Fe26.2*id*…: the seal names the password id it was made with; each secret is offered under that id.
  const id = seal.split("*")[1] || "1";
  for (const secret of secrets()) {
    try {
      const data = await unsealData<SessionData>(seal, { password: { [id]: secret }, ttl: SESSION_TTL_SECONDS });
      if (typeof data.customerId === "string") return data.customerId;
    } catch {
      // iron-session throws on some malformed seals instead of returning an empty session
    }
  }
  return null;
}

/** The signed-in customer, or null for a missing, expired or forged cookie. */
export async function currentCustomerId(request: Request): Promise<string | null> {
  return customerOfSeal(sessionCookieOf(request.headers.get("cookie"), cookieNameFor(request)));
}

/** The customer of the page being rendered (a page has its headers and cookies, not a Request). */
export async function pageCustomerId(): Promise<string | null> {
  const name = cookieName(COOKIE_NAME, secureCookies(await headers()));
  return customerOfSeal((await cookies()).get(name)?.value ?? null);
}

async function customerOfSeal(seal: string | null): Promise<string | null> {
  if (!seal) return null;
  const now = Date.now();
  const known = unsealed.get(seal);
  if (known && known.until > now) return known.customerId;
  const customerId = await unsealCustomer(seal, now);
  if (customerId === null) return null;
  remember(seal, customerId, now);
  return customerId;
}

/**
 * Sessions already unsealed, by their exact sealed value. Unsealing derives
 * two keys with PBKDF2 and costs a third of a duplicate checkout's CPU
 * (docs/performance.md); a shopper's retries, polls and duplicates send the
 * same seal again and again. Only a seal that passed its HMAC is kept, for a
 * minute at most and never past the seal's own expiry, so a hit answers what
 * unsealing again would answer. Bounded: the oldest entry goes first.
 */
const unsealed = new Map<string, { customerId: string; until: number }>();
const UNSEALED_FOR_MS = 60_000;
const UNSEALED_MAX = 10_000;

function remember(seal: string, customerId: string, now: number): void {
  // Fe26.2*id*salt*iv*ciphertext*expiration*hmacSalt*hmac~2: the expiry (ms) is covered by the HMAC just checked.
  const expiration = Number(seal.split("*")[5] || Infinity);
  const until = Math.min(now + UNSEALED_FOR_MS, expiration);
  if (!(until > now)) return;
  unsealed.delete(seal);
  if (unsealed.size >= UNSEALED_MAX) unsealed.delete(unsealed.keys().next().value!);
  unsealed.set(seal, { customerId, until });
}

/**
 * The session cookie's value from a Cookie header, parsed as Next's cookie
 * store parses it (which `startSession` reads): the last decodable value of
 * that name wins.
 */
export function sessionCookieOf(header: string | null, name = COOKIE_NAME): string | null {
  let seal: string | null = null;
  for (const pair of header?.split(/; */) ?? []) {
    const at = pair.indexOf("=");
    if (at < 0 || pair.slice(0, at) !== name) continue;
    try {
      seal = decodeURIComponent(pair.slice(at + 1));
    } catch {
      // skipped, as Next skips it
    }
  }
  return seal || null;
}

/** Returns the session's customer, creating the customer and the cookie when absent (or unreadable). */
export async function startSession(
  request: Request,
  prisma: PrismaClient,
): Promise<{ customerId: string; created: boolean }> {
  const known = await currentCustomerId(request);
  if (known) return { customerId: known, created: false };
  const customer = await prisma.customer.create({ data: {}, select: { id: true } });
  // Sealed with the current secret alone; its expiry travels inside the seal.
  const seal = await sealData({ customerId: customer.id } satisfies SessionData, {
    password: secrets()[0]!,
    ttl: SESSION_TTL_SECONDS,
  });
  const store = await cookies();
  const secure = secureCookie(request);
  store.set(cookieName(COOKIE_NAME, secure), seal, {
    httpOnly: true,
    sameSite: "lax",
    secure,
    path: "/",
    // A minute before the seal expires, so a browser never sends a seal that has just expired.
    maxAge: SESSION_TTL_SECONDS - 60,
  });
  return { customerId: customer.id, created: true };
}
