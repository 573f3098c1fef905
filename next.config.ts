import type { NextConfig } from "next";
import { API_HEADERS, HSTS } from "./lib/security/headers";

const headerList = (headers: Record<string, string>) => Object.entries(headers).map(([key, value]) => ({ key, value }));

const config: NextConfig = {
  poweredByHeader: false,
  // Tests build into their own folder so a running demo's build is never touched.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // Server-only packages with native or dynamic requires stay out of the bundle.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "pino", "prom-client"],
  // `npm run typecheck` (part of `npm test`) checks the whole project once;
  // repeating it in every build only slows the demo down.
  typescript: { ignoreBuildErrors: true },
  // API routes' security headers (pages' come from proxy.ts, with a nonce; see lib/security/headers.ts).
  async headers() {
    return [
      { source: "/api/:path*", headers: headerList(API_HEADERS) },
      {
        source: "/api/:path*",
        has: [{ type: "header", key: "x-forwarded-proto", value: "https" }],
        headers: [{ key: "Strict-Transport-Security", value: HSTS }],
      },
    ];
  },
};

export default config;
