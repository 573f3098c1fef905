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

function options(secure: boolean): SessionOptions {
  const password = env().SESSION_SECRET;
  if (!password) throw new ConfigError("SESSION_SECRET: required to sign session cookies (npm run demo generates one)");
  return {
    password,
    cookieName: "checkout_session",
    cookieOptions: { httpOnly: true, sameSite: "lax", secure, path: "/", maxAge: 60 * 60 * 24 * 30 },
  };
}

const isHttps = (request: Request) => new URL(request.url).protocol === "https:";

/** The signed-in customer, or null for a missing, expired or forged cookie. */
export async function currentCustomerId(request: Request): Promise<string | null> {
  const session = await getIronSession<SessionData>(await cookies(), options(isHttps(request)));
  return typeof session.customerId === "string" ? session.customerId : null;
}

/** Returns the session's customer, creating the customer and the cookie when absent. */
export async function startSession(request: Request, prisma: PrismaClient): Promise<{ customerId: string; created: boolean }> {
  const session = await getIronSession<SessionData>(await cookies(), options(isHttps(request)));
  if (typeof session.customerId === "string") return { customerId: session.customerId, created: false };
  const customer = await prisma.customer.create({ data: {}, select: { id: true } });
  session.customerId = customer.id;
  await session.save();
  return { customerId: customer.id, created: true };
}
