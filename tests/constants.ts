/** The production build that Vitest's HTTP tests and Playwright share (never a running demo's `.next`). */
export const TEST_DIST_DIR = ".next-test";
