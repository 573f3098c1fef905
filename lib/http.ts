import type { z } from "zod";
import { clientAddress } from "./abuse/client-address";
import { PrefixFloods } from "./abuse/ipv6-prefixes";
import { MAX_BODY_BYTES } from "./body-limit";
import { env } from "./env";
import { isAllowedOrigin, shopperOrigin } from "./origin";
import { issuesOf, type ValidationIssue } from "./validation";

/** JSON responses in the contract's shape: errors are `{ error, message, ...extra }`. */
export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  return Response.json(body, { status, headers });
}

export function jsonError(
  status: number,
  error: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers?: HeadersInit,
): Response {
  return Response.json({ error, message, ...extra }, { status, headers });
}

export { MAX_BODY_BYTES } from "./body-limit";

export type BodyResult<T = unknown> = { ok: true; value: T } | { ok: false; response: Response };

/** 400 invalid_request, with what is wrong where. */
export const invalidRequest = (message: string, issues: ValidationIssue[]) =>
  jsonError(400, "invalid_request", message, { issues });

/** A JSON body (see readJsonBody) that `schema` accepts; otherwise 400 invalid_request with `message` and the schema's issues. */
export async function readValidJson<T>(
  request: Request,
  schema: z.ZodType<T>,
  message: string,
): Promise<BodyResult<T>> {
  const body = await readJsonBody(request);
  if (!body.ok) return body;
  const parsed = schema.safeParse(body.value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, response: invalidRequest(message, issuesOf(parsed.error)) };
}

/**
 * Reads a JSON body of at most `limit` bytes (see readTextBody).
 */
export async function readJsonBody(request: Request, limit = MAX_BODY_BYTES): Promise<BodyResult> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    return {
      ok: false,
      response: jsonError(400, "invalid_json", "Send the body as JSON with Content-Type: application/json."),
    };
  }
  const text = await readTextBody(request, limit);
  if (!text.ok) return text;
  try {
    return { ok: true, value: JSON.parse(text.value) };
  } catch {
    return { ok: false, response: jsonError(400, "invalid_json", "The body is not valid JSON.") };
  }
}

/**
 * The body exactly as sent, as UTF-8 text, if it is at most `limit` bytes. A
 * declared Content-Length over the limit is refused before reading; an
 * undeclared one as soon as the stream passes the limit, so a huge body is
 * never buffered.
 */
export async function readTextBody(request: Request, limit: number): Promise<BodyResult<string>> {
  const tooLarge = () => ({
    ok: false as const,
    response: jsonError(413, "payload_too_large", `The body must be at most ${limit} bytes.`),
  });
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > limit) return tooLarge();
  // A declared length frames the body (Node's parser reads no more), so it can be read whole.
  if (declared >= 0) return { ok: true, value: Buffer.from(await request.arrayBuffer()).toString("utf8") };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return tooLarge();
    }
    chunks.push(value);
  }
  return { ok: true, value: Buffer.concat(chunks).toString("utf8") };
}

/** A browser POST from an origin that is not the app's own (see lib/origin.ts: APP_ORIGIN, TRUST_PROXY). */
export function isForeignOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return false;
  const { appOrigins, TRUST_PROXY } = env();
  return !isAllowedOrigin(origin, request.headers, { appOrigins, trustProxy: TRUST_PROXY });
}

/**
 * The origin the shopper's browser uses, for URLs the shop hands out (the
 * 3-D Secure return): the request's Origin when the origin check accepts it
 * as the shop's own (the browser sent it, so it is what the shopper typed:
 * `127.0.0.1` stays `127.0.0.1`), else the first of APP_ORIGIN, else the
 * Host the request was sent to. Never `request.url`, which Next builds from
 * the address it listens on.
 */
export function publicOrigin(request: Request): string {
  const { appOrigins, TRUST_PROXY } = env();
  return shopperOrigin(request.headers, { appOrigins, trustProxy: TRUST_PROXY }, new URL(request.url).protocol);
}

/** 429 rate_limited: nothing was stored; the same request may be sent again after Retry-After. */
export const rateLimited = (retryAfterSeconds: number, message = "Too many requests; try again shortly.") =>
  jsonError(429, "rate_limited", message, { retryAfterSeconds }, { "Retry-After": String(retryAfterSeconds) });

/** The answers to a cross-site write (403) and to a request without a session (401), the same on every route. */
export const forbiddenOrigin = () => jsonError(403, "forbidden_origin", "Cross-site requests are not accepted.");
export const unauthenticated = () => jsonError(401, "unauthenticated", "Start a session first (POST /api/session).");

export { isUuid } from "./uuid";

/** The client's address for the per-address limits, as TRUSTED_PROXY_HOPS or CLIENT_IP_HEADER define it (lib/abuse/client-address.ts). */
export function requestAddress(request: Request): string {
  const { TRUSTED_PROXY_HOPS, CLIENT_IP_HEADER, RATE_LIMIT_WINDOW_SECONDS } = env();
  const key = clientAddress(request.headers, {
    trustedProxyHops: TRUSTED_PROXY_HOPS,
    clientIpHeader: CLIENT_IP_HEADER,
  });
  // An IPv6 prefix that floods from many /64s counts as one (lib/abuse/ipv6-prefixes.ts).
  const global = globalThis as unknown as { checkoutPrefixFloods?: PrefixFloods };
  global.checkoutPrefixFloods ??= new PrefixFloods(undefined, RATE_LIMIT_WINDOW_SECONDS * 1000);
  return global.checkoutPrefixFloods.key(key);
}
