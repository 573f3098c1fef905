import "server-only";
import { getIronSession, type SessionOptions } from "iron-session";
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

function options(secure: boolean): SessionOptions {
  const password = env().SESSION_SECRET;
  if (!password) throw new ConfigError("SESSION_SECRET: required to sign session cookies (npm run demo generates one)");
  return {
    password,
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

/** iron-session throws on some malformed seals instead of returning an empty session: such a cookie is dropped. */
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
  const session = await readSession(request);
  return typeof session.customerId === "string" ? session.customerId : null;
}

/** Returns the session's customer, creating the customer and the cookie when absent. */
export async function startSession(request: Request, prisma: PrismaClient): Promise<{ customerId: string; created: boolean }> {
  const session = await readSession(request);
  if (typeof session.customerId === "string") return { customerId: session.customerId, created: false };
  const customer = await prisma.customer.create({ data: {}, select: { id: true } });
  session.customerId = customer.id;
  await session.save();
  return { customerId: customer.id, created: true };
}
