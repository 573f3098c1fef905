import "server-only";
import { getIronSession, unsealData, type SessionOptions } from "iron-session";
import { cookies } from "next/headers";
import type { PrismaClient } from "./generated/prisma/client";
import { ConfigError, env } from "./env";

/**
 * Guest sessions: a sealed (encrypted and signed) cookie made by iron-session,
 * HttpOnly and SameSite=Lax. The customer id in it is the subject of every
 * idempotency key, so it comes only from here, never from a request body.
 */
interface SessionData {
  customerId?: string;
}

const COOKIE_NAME = "checkout_session";

/**
 * One lifetime for the sealed session and its cookie. iron-session makes the
 * cookie's Max-Age 60 s shorter than the seal's, so a browser never sends a
 * seal that has just expired (which would read as "no session" mid-attempt).
 */
export const SESSION_TTL_SECONDS = 60 * 60 * 24 * 30;

function password(): string {
  const secret = env().SESSION_SECRET;
  if (!secret) throw new ConfigError("SESSION_SECRET: required to sign session cookies (npm run demo generates one)");
  return secret;
}

function options(secure: boolean): SessionOptions {
  return {
    password: password(),
    cookieName: COOKIE_NAME,
    ttl: SESSION_TTL_SECONDS,
    // No maxAge here: iron-session derives it from ttl (see above).
    cookieOptions: { httpOnly: true, sameSite: "lax", secure, path: "/" },
  };
}

/**
 * Secure cookies whenever the browser talks https: to this server directly,
 * or to a TLS-terminating proxy or load balancer in front of it (which says
 * so in X-Forwarded-Proto). Trusting the header is safe here: a client that
 * forges it only gets a cookie its own plain-http browser will not send back.
 */
const isHttps = (request: Request) =>
  new URL(request.url).protocol === "https:" ||
  request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";

/** For writing the session. iron-session throws on some malformed seals instead of returning an empty session: such a cookie is dropped. */
async function readSession(request: Request) {
  const store = await cookies();
  try {
    return await getIronSession<SessionData>(store, options(isHttps(request)));
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    store.delete(COOKIE_NAME);
    return getIronSession<SessionData>(store, options(isHttps(request)));
  }
}

/** The signed-in customer, or null for a missing, expired or forged cookie. */
export async function currentCustomerId(request: Request): Promise<string | null> {
  const seal = sessionCookieOf(request.headers.get("cookie"));
  if (!seal) return null;
  const now = Date.now();
  const known = unsealed.get(seal);
  if (known && known.until > now) return known.customerId;
  let data: SessionData;
  try {
    data = await unsealData<SessionData>(seal, { password: password(), ttl: SESSION_TTL_SECONDS });
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    return null; // iron-session throws on some malformed seals instead of returning an empty session
  }
  if (typeof data.customerId !== "string") return null;
  remember(seal, data.customerId, now);
  return data.customerId;
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
export function sessionCookieOf(header: string | null): string | null {
  let seal: string | null = null;
  for (const pair of header?.split(/; */) ?? []) {
    const at = pair.indexOf("=");
    if (at < 0 || pair.slice(0, at) !== COOKIE_NAME) continue;
    try {
      seal = decodeURIComponent(pair.slice(at + 1));
    } catch {
      // skipped, as Next skips it
    }
  }
  return seal || null;
}

/** Returns the session's customer, creating the customer and the cookie when absent. */
export async function startSession(
  request: Request,
  prisma: PrismaClient,
): Promise<{ customerId: string; created: boolean }> {
  const session = await readSession(request);
  if (typeof session.customerId === "string") return { customerId: session.customerId, created: false };
  const customer = await prisma.customer.create({ data: {}, select: { id: true } });
  session.customerId = customer.id;
  await session.save();
  return { customerId: customer.id, created: true };
}
