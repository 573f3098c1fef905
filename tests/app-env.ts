import { TEST_DIST_DIR } from "./constants";

/** What test app servers run with; free of Vitest imports, so the global setup can use it too. */
/** 32 random bytes, hex, as `openssl rand -hex 32` makes them (the app refuses weaker secrets). */
export const TEST_SESSION_SECRET = "9f3c1e7a5b2d48c6a0e4f7b19d3c5a8e2b6f0d4c7a1e9b3f5d8c2a6e0b4f7d1c";
export const TEST_METRICS_TOKEN = "4b8e2f6a0c3d7e1b5f9a2c6e0d4b8f3a7c1e5d9b2f6a0c4e8d3b7f1a5c9e2d6b";

/** The variables a test app runs with; `overrides` win. */
export function testAppEnv(options: {
  databaseUrl: string;
  stripeApiBase: string;
  stripeKey?: string;
  overrides?: Record<string, string>;
}): Record<string, string> {
  return {
    DATABASE_URL: options.databaseUrl,
    STRIPE_SECRET_KEY: options.stripeKey ?? "sk_test_emulator",
    STRIPE_API_BASE: options.stripeApiBase,
    SESSION_SECRET: TEST_SESSION_SECRET,
    METRICS_TOKEN: TEST_METRICS_TOKEN,
    // Many tests start sessions and attempts from 127.0.0.1 at once: the abuse limits, raised (lib/abuse/limits.ts).
    RATE_LIMIT_SCALE: "1000",
    NEXT_DIST_DIR: TEST_DIST_DIR,
    // Off unless a test asks for it: a reconciler takes over every abandoned attempt in its database, other tests' included.
    MAINTENANCE_INTERVAL_MS: "0",
    ...options.overrides,
  };
}

export async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
