import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/lib/env";
import { labEnabled, labOff } from "@/lib/lab/enabled";
import { newNonce, securityHeaders, servedOverHttps, stripeJsSources } from "@/lib/security/headers";

/**
 * Runs before pages, assets and the lab's routes (Node.js runtime): the
 * security headers of pages and assets, and the lab's one switch. The CSP
 * goes on the request too, where Next.js reads its nonce and stamps it on the
 * page's scripts (pages render per request, see app/layout.tsx). The other
 * API routes never pass through here: a proxy makes Next.js buffer request
 * bodies (at most PROXY_BODY_BUFFER_BYTES, lib/body-limit.ts); their headers
 * come from next.config.ts (lib/security/headers.ts).
 */
export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  if (pathname.startsWith("/api/")) {
    // Only the lab's routes match; their headers come from next.config.ts like every API route's.
    return labEnabled(env()) ? NextResponse.next() : labOff();
  }
  const headers = securityHeaders({
    nonce: newNonce(),
    pathname,
    https: servedOverHttps(request.nextUrl, request.headers),
    development: env().NODE_ENV === "development",
    stripe: stripeJsSources(env().stripeJsUrl),
  });
  let response: NextResponse;
  if (isLabPage(pathname) && !labEnabled(env())) {
    // Next's own 404 page, as for any path that does not exist.
    response = NextResponse.rewrite(new URL("/_lab-off", request.url));
  } else {
    const forwarded = new Headers(request.headers);
    forwarded.set("content-security-policy", headers["Content-Security-Policy"]!);
    response = NextResponse.next({ request: { headers: forwarded } });
  }
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

const isLabPage = (pathname: string) => /^\/lab(\/|$)/.test(pathname);

export const config = {
  // Everything but /api/*, plus the lab's API routes (for the switch).
  matcher: ["/((?!api/).*)", "/api/lab", "/api/lab/:path*"],
};
