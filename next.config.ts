import { existsSync, writeFileSync } from "node:fs";
import type { NextConfig } from "next";
import { PROXY_BODY_BUFFER_BYTES } from "./lib/body-limit";
import { API_HEADERS, API_HSTS_WHEN, HSTS } from "./lib/security/headers";

// Tests, the soak and the bench build into folders of their own, so a running
// demo's `.next` is never touched. Next adds `<folder>/types/**/*.ts` to the
// tsconfig it is given; a build into another folder is given an untracked one
// that extends tsconfig.json, so no build or test run rewrites a tracked file.
const distDir = process.env.NEXT_DIST_DIR || ".next";
const BUILD_TSCONFIG = ".next-tsconfig.json";
if (distDir !== ".next" && !existsSync(BUILD_TSCONFIG)) {
  writeFileSync(BUILD_TSCONFIG, JSON.stringify({ extends: "./tsconfig.json" }));
}

const headerList = (headers: Record<string, string>) => Object.entries(headers).map(([key, value]) => ({ key, value }));

const config: NextConfig = {
  poweredByHeader: false,
  distDir,
  // What a request through proxy.ts may have buffered of its body (lib/body-limit.ts), instead of 10 MB.
  experimental: { proxyClientMaxBodySize: PROXY_BODY_BUFFER_BYTES },
  // Server-only packages with native or dynamic requires stay out of the bundle.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "pino", "prom-client"],
  // The idempotency engine is a workspace package shipped as TypeScript source.
  transpilePackages: ["@checkout/idempotency"],
  // `npm run typecheck` (part of `npm test`) checks the whole project once;
  // repeating it in every build only slows the demo down.
  typescript: { ignoreBuildErrors: true, ...(distDir !== ".next" && { tsconfigPath: BUILD_TSCONFIG }) },
  // API routes' security headers (pages' come from proxy.ts, with a nonce; see lib/security/headers.ts).
  async headers() {
    return [
      { source: "/api/:path*", headers: headerList(API_HEADERS) },
      {
        source: "/api/:path*",
        has: [API_HSTS_WHEN],
        headers: [{ key: "Strict-Transport-Security", value: HSTS }],
      },
    ];
  },
};

export default config;
