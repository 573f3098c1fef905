/**
 * Which browser origins may write (POST) to the app. A browser sends Origin
 * with every cross-site POST; Requests without it (curl, servers) carry no
 * ambient browser credentials beyond the SameSite=Lax cookie and pass.
 *
 * - APP_ORIGIN set: exactly those origins (scheme, host and port), whatever
 *   Host a proxy in front has rewritten the request to.
 * - otherwise: the Origin's host must be the host the request was sent to,
 *   which is `Host`, or `X-Forwarded-Host` when TRUST_PROXY says a proxy
 *   sets it. Without that, the header is the client's to forge, so ignored.
 */
export interface OriginPolicy {
  appOrigins: readonly string[];
  trustProxy: boolean;
}

export function isAllowedOrigin(origin: string, headers: Headers, policy: OriginPolicy): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, some redirects) or garbage
  }
  if (policy.appOrigins.length > 0) return policy.appOrigins.includes(url.origin);
  return url.host === requestHost(headers, policy.trustProxy);
}

/** The host the browser addressed: the proxy's first X-Forwarded-Host when trusted, else Host. */
function requestHost(headers: Headers, trustProxy: boolean): string | null {
  const forwarded = trustProxy ? headers.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
  return forwarded || headers.get("host");
}

/**
 * The shop's origin as the shopper's browser addressed it: its Origin header
 * when allowed (see isAllowedOrigin), else the first APP_ORIGIN, else the
 * scheme and host the request was sent to.
 */
export function shopperOrigin(headers: Headers, policy: OriginPolicy, fallbackProtocol: string): string {
  const origin = headers.get("origin");
  if (origin !== null && isAllowedOrigin(origin, headers, policy)) return new URL(origin).origin;
  if (policy.appOrigins[0]) return policy.appOrigins[0];
  const forwardedProto = policy.trustProxy
    ? headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase()
    : undefined;
  const protocol = forwardedProto === "https" || forwardedProto === "http" ? `${forwardedProto}:` : fallbackProtocol;
  return `${protocol}//${requestHost(headers, policy.trustProxy) ?? "localhost"}`;
}
