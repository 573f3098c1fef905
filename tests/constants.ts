import { embeddedDatabaseOf, type StackUser } from "@/scripts/lib/port-plan";

/** The production build that Vitest's HTTP tests and Playwright share (never a running demo's `.next`); TEST_DIST_DIR lets runs side by side keep apart. */
export const TEST_DIST_DIR = process.env.TEST_DIST_DIR || ".next-test";

/**
 * The variables with the test runner's own embedded PostgreSQL, apart from the
 * demo's and the other runner's (scripts/lib/port-plan.ts): Vitest and
 * Playwright run at once (scripts/test.mjs), a finishing run never stops a
 * running demo's database, and a demo never sees test data.
 */
export function testEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  runner: Extract<StackUser, "vitest" | "e2e"> = "vitest",
): Record<string, string | undefined> {
  return { ...env, ...embeddedDatabaseOf(runner, env) };
}
