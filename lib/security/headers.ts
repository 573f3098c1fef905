import { CSP_REPORT_GROUP, CSP_REPORT_PATH } from "./csp-report";

/**
 * The security headers every response carries, decided in one place. Pages
 * and assets get them from proxy.ts: scripts run only with this response's
 * nonce, which Next.js puts on its own scripts when it finds it in the
 * request's CSP; nothing is loaded from another origin but Stripe.js's
 * (see stripeJsSources), and no page may be framed. API routes get the static API_HEADERS from next.config.ts instead:
 * a proxy makes Next.js buffer the request body before the route runs
 * (at most PROXY_BODY_BUFFER_BYTES, lib/body-limit.ts), which would defeat
 * the routes' own body limits (16 KiB, refused while streaming).
 */
export interface HeaderContext {
  nonce: string;
  pathname: string;
  /** The browser reached the shop over https (directly or through a TLS-terminating proxy). */
  https: boolean;
  /** `next dev`: React's dev tooling needs eval. */
  development: boolean;
  /** Where Stripe.js runs from (stripeJsSources). */
  stripe: StripeJsSources;
}

/**
 * The origins Stripe.js needs beyond the shop's own: its script, its iframes
 * (card fields, 3-D Secure), its API, and the frames that may use the Payment
 * Request API (the wallets the Payment Element offers with cards).
 */
export interface StripeJsSources {
  script: string[];
  frame: string[];
  connect: string[];
  payment: string[];
}

/**
 * Exactly what Stripe's security guide lists for Stripe.js (script and
 * frames from js.stripe.com and its subdomains, 3-D Secure's hooks.stripe.com,
 * the API at api.stripe.com), less Google Maps, which only the Address
 * Element's autocomplete needs, and no `'unsafe-inline'` styles, which it does
 * not list; `payment` for js.stripe.com's frames, without which the Payment
 * Element hides Apple Pay and Google Pay. With the local emulator, its origin
 * alone, which serves the stand-in, its iframe, its 3-D Secure page and its API.
 */
export function stripeJsSources(emulatorStripeJsUrl: string | null): StripeJsSources {
  if (emulatorStripeJsUrl) {
    const origin = new URL(emulatorStripeJsUrl).origin;
    // The stand-in offers no wallets.
    return { script: [origin], frame: [origin], connect: [origin], payment: [] };
  }
  return {
    script: ["https://js.stripe.com", "https://*.js.stripe.com"],
    frame: ["https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"],
    connect: ["https://api.stripe.com"],
    payment: ["https://js.stripe.com"],
  };
}

/** The 3-D Secure return page's URL carries the PaymentIntent's client secret: it must never leave in a Referer. */
const SECRET_IN_URL = /^\/checkout\/return(\/|$)/;

export function contentSecurityPolicy({
  nonce,
  development,
  stripe,
}: Pick<HeaderContext, "nonce" | "development" | "stripe">): string {
  // Under 'strict-dynamic' browsers ignore host sources in script-src (the nonce'd bundle loads Stripe.js);
  // they are there for browsers without it.
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic' ${stripe.script.join(" ")}${development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self' ${stripe.connect.join(" ")}`,
    `frame-src ${stripe.frame.join(" ")}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    // Violations are reported to the shop, which logs them (app/api/csp-report): report-to where the
    // browser supports it (over https), report-uri elsewhere.
    `report-uri ${CSP_REPORT_PATH}`,
    `report-to ${CSP_REPORT_GROUP}`,
  ].join("; ");
}

const DENIED_FEATURES = "camera=(), microphone=(), geolocation=(), usb=(), interest-cohort=()";

/** Every powerful feature off, but the Payment Request API for Stripe.js's frames (wallets), where it runs. */
export function permissionsPolicy(stripe: Pick<StripeJsSources, "payment"> | null): string {
  const allowed = stripe?.payment.map((origin) => `"${origin}"`) ?? [];
  return `${DENIED_FEATURES}, payment=(${allowed.length > 0 ? ["self", ...allowed].join(" ") : ""})`;
}
/** Only over https: an HSTS header on plain http is ignored, and would pin a local demo to https if it were not. */
export const HSTS = "max-age=31536000; includeSubDomains";

export function securityHeaders(context: HeaderContext): Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(context),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": SECRET_IN_URL.test(context.pathname) ? "no-referrer" : "strict-origin-when-cross-origin",
    "Permissions-Policy": permissionsPolicy(context.stripe),
    "X-Frame-Options": "DENY",
    "Reporting-Endpoints": `${CSP_REPORT_GROUP}="${CSP_REPORT_PATH}"`,
    ...(context.https ? { "Strict-Transport-Security": HSTS } : {}),
  };
}

/** JSON answers load nothing and are never framed. */
export const API_HEADERS: Record<string, string> = {
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Permissions-Policy": permissionsPolicy(null),
  "X-Frame-Options": "DENY",
};

/** When next.config.ts adds HSTS to an API answer: behind a proxy that says it was reached over https. */
export const API_HSTS_WHEN = { type: "header", key: "x-forwarded-proto", value: "https" } as const;

/** What next.config.ts adds to every API answer, for an answer sent without Next.js (the front door). */
export function apiHeadersFor(request: Request): Record<string, string> {
  return request.headers.get(API_HSTS_WHEN.key) === API_HSTS_WHEN.value
    ? { ...API_HEADERS, "Strict-Transport-Security": HSTS }
    : API_HEADERS;
}

/** https to this server, or to the proxy in front of it (its first X-Forwarded-Proto). */
export function servedOverHttps(url: URL, headers: Headers): boolean {
  return url.protocol === "https:" || headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}

/** 128 random bits, base64: a fresh nonce per response. */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}
