import type { Env } from "./env";

/**
 * What a production server cannot serve without, checked when it starts (see
 * instrumentation.ts). Next.js only logs an error thrown there and then
 * answers every request with 500, so the process exits instead: an
 * orchestrator sees a failed start, not a healthy-looking broken server.
 */
export function refuseToServeWithout(env: Env): void {
  if (env.NODE_ENV === "production" && !env.SESSION_SECRET) {
    console.error(
      "Invalid configuration:\n  SESSION_SECRET: required in production (32+ characters, the same on every instance, e.g. `openssl rand -hex 32`)",
    );
    process.exit(1);
  }
}
