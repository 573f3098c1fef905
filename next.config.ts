import type { NextConfig } from "next";

const config: NextConfig = {
  poweredByHeader: false,
  // Tests build into their own folder so a running demo's build is never touched.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // Server-only packages with native or dynamic requires stay out of the bundle.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "pino", "prom-client"],
  // `npm run typecheck` (part of `npm test`) checks the whole project once;
  // repeating it in every build only slows the demo down.
  typescript: { ignoreBuildErrors: true },
};

export default config;
