/**
 * The security headers every response carries, decided in one place (used by
 * proxy.ts). Scripts run only with this response's nonce, which Next.js puts
 * on its own scripts when it finds it in the request's CSP; nothing is loaded
 * from another origin, and no page may be framed.
 */
export interface HeaderContext {
  nonce: string;
  pathname: string;
  /** The browser reached the shop over https (directly or through a TLS-terminating proxy). */
  https: boolean;
  /** `next dev`: React's dev tooling needs eval. */
  development: boolean;
}

/** The 3-D Secure return page's URL carries the PaymentIntent's client secret: it must never leave in a Referer. */
const SECRET_IN_URL = /^\/checkout\/return(\/|$)/;

export function contentSecurityPolicy({ nonce, development }: Pick<HeaderContext, "nonce" | "development">): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function securityHeaders(context: HeaderContext): Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(context),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": SECRET_IN_URL.test(context.pathname) ? "no-referrer" : "strict-origin-when-cross-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
    "X-Frame-Options": "DENY",
    // Only over https: an HSTS header on plain http is ignored, and would pin a local demo to https if it were not.
    ...(context.https ? { "Strict-Transport-Security": "max-age=31536000; includeSubDomains" } : {}),
  };
}

/** https to this server, or to the proxy in front of it (its first X-Forwarded-Proto). */
export function servedOverHttps(url: URL, headers: Headers): boolean {
  return url.protocol === "https:" || headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}

/** 128 random bits, base64: a fresh nonce per response. */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}
