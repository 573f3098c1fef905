import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/lib/env";
import { labEnabled, isLabPath } from "@/lib/lab/enabled";
import { newNonce, securityHeaders, servedOverHttps } from "@/lib/security/headers";

/**
 * Runs before every request (Node.js runtime): the security headers on every
 * response, and the lab's one switch. The CSP goes on the request too, where
 * Next.js reads its nonce and stamps it on the page's scripts (pages render
 * per request, see app/layout.tsx).
 */
export function proxy(request: NextRequest) {
  const headers = securityHeaders({
    nonce: newNonce(),
    pathname: request.nextUrl.pathname,
    https: servedOverHttps(request.nextUrl, request.headers),
    development: env().NODE_ENV === "development",
  });
  let response: NextResponse;
  if (isLabPath(request.nextUrl.pathname) && !labEnabled(env())) {
    response = request.nextUrl.pathname.startsWith("/api/")
      ? NextResponse.json(
          { error: "not_found", message: "The lab is off (LAB_NAIVE_ENDPOINT=1 with the Stripe emulator enables it)." },
          { status: 404 },
        )
      : // Next's own 404 page, as for any path that does not exist.
        NextResponse.rewrite(new URL("/_lab-off", request.url));
  } else {
    const forwarded = new Headers(request.headers);
    forwarded.set("content-security-policy", headers["Content-Security-Policy"]!);
    response = NextResponse.next({ request: { headers: forwarded } });
  }
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
