/** The production build that Vitest's HTTP tests and Playwright share (never a running demo's `.next`); TEST_DIST_DIR lets runs side by side keep apart. */
export const TEST_DIST_DIR = process.env.TEST_DIST_DIR || ".next-test";

/**
 * Test runs keep their embedded PostgreSQL apart from the demo's (its own
 * folder and port), so a finishing test run never stops a running demo's
 * database, and a demo never sees test data.
 */
export function testEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  const dataDir = env.DATA_DIR || ".data";
  const port = Number(env.EMBEDDED_PG_PORT || 54329) + 1;
  return { ...env, DATA_DIR: `${dataDir}/test`, EMBEDDED_PG_PORT: String(port) };
}
