import { TEST_DIST_DIR } from "./constants";

/** What test app servers run with; free of Vitest imports, so the global setup can use it too. */
export const TEST_SESSION_SECRET = "test-session-secret-0123456789abcdef0123456789";

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
