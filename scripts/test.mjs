// `npm test`: everything, end to end included, on both cores
// (docs/testing.md). Chromium is found or installed first; then format, lint,
// typecheck, the build and Vitest's `unit` tier run at once; once all pass,
// Vitest's `app` and `serial` tiers and Playwright run at once on that build.
import { npmScript, runAtOnce, verdict } from "./lib/steps.mjs";

const started = Date.now();
const results = [];
for (const phase of [
  [npmScript("test:browser")],
  [
    npmScript("format:check"),
    npmScript("lint"),
    npmScript("typecheck"),
    npmScript("test:build"),
    { name: "vitest unit", command: "npx", args: ["vitest", "run", "--project", "unit"] },
  ],
  [
    {
      name: "vitest app, serial",
      command: "npx",
      args: ["vitest", "run", "--project", "app", "--project", "serial"],
      env: { TEST_REUSE_BUILD: "1" },
    },
    { name: "playwright", command: "npx", args: ["playwright", "test"], env: { TEST_REUSE_BUILD: "1" } },
  ],
]) {
  results.push(...(await runAtOnce(phase, started)));
  if (results.some((r) => !r.ok)) break;
}
process.exit(verdict("npm test", results, started));
