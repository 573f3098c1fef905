import "server-only";
import { env } from "../env";
import { jsonError, MAX_BODY_BYTES, readTextBody } from "../http";
import { operatorCookie, operatorOf, type Operator } from "./credential";

/** The operator's routes share these answers: absent without OPS_TOKEN, as metrics are without theirs. */
export const opsOff = () =>
  jsonError(
    404,
    "not_found",
    "The operator's page is off: set OPS_TOKEN to serve it.",
    {},
    { "Cache-Control": "no-store" },
  );

export const opsUnauthenticated = () =>
  jsonError(
    401,
    "unauthenticated",
    "Send Authorization: Bearer <OPS_TOKEN>, or sign in on /ops.",
    {},
    { "WWW-Authenticate": 'Bearer realm="ops"', "Cache-Control": "no-store" },
  );

/** 303 back to the page (after a form post), with a notice for it to show. */
export function backToOps(request: Request, notice?: string): Response {
  const url = new URL("/ops", request.url);
  if (notice) url.searchParams.set("notice", notice);
  return new Response(null, {
    status: 303,
    headers: { Location: `${url.pathname}${url.search}`, "Cache-Control": "no-store" },
  });
}

/**
 * The Set-Cookie that signs the operator out: under the name it was set
 * with, Secure where it was (a browser ignores a `__Host-` cookie without).
 */
export function operatorCookieCleared(request: Request): string {
  const cookie = operatorCookie(request.headers, new URL(request.url));
  return `${cookie.name}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${cookie.secure ? "; Secure" : ""}`;
}

/** The signed-in operator of a request, from the operator's cookie. */
export async function requestOperator(request: Request): Promise<Operator | null> {
  const token = env().OPS_TOKEN;
  if (!token) return null;
  const { name } = operatorCookie(request.headers, new URL(request.url));
  const cookie = (request.headers.get("cookie") ?? "")
    .split(/; */)
    .find((pair) => pair.startsWith(`${name}=`))
    ?.slice(name.length + 1);
  return operatorOf(cookie ? decoded(cookie) : undefined, token);
}

/** A cookie's value as set; a malformed escape (a hand-made cookie) names nobody. */
function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** A form post's fields, read within the shop's body limit (a bigger one is 413 before it is buffered). */
export async function readForm(
  request: Request,
): Promise<{ ok: true; form: URLSearchParams } | { ok: false; response: Response }> {
  const body = await readTextBody(request, MAX_BODY_BYTES);
  return body.ok ? { ok: true, form: new URLSearchParams(body.value) } : body;
}
