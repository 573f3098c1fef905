// `npm test`: everything, end to end included, on both cores
// (docs/testing.md). Chromium check, format, lint, typecheck, the build and
// Vitest's `unit` tier start at once; on the build, Vitest's `app` tier
// (after `unit`) beside Playwright; then, alone, Vitest's `serial` tier.
// Vitest's tiers follow one another on its embedded PostgreSQL; Playwright
// has its own (scripts/lib/port-plan.ts).
import { npmScript, runSteps, verdict } from "./lib/steps.mjs";

/** A Vitest tier as a process of its own, on the build `test:build` made. */
const vitest = (project, after) => ({
  name: `vitest ${project}`,
  command: "npx",
  args: ["vitest", "run", "--project", project],
  env: project === "unit" ? {} : { TEST_REUSE_BUILD: "1" },
  after,
});

const started = Date.now();
const results = await runSteps(
  [
    npmScript("test:browser"),
    npmScript("format:check"),
    npmScript("lint"),
    npmScript("typecheck"),
    npmScript("test:build"),
    vitest("unit", []),
    vitest("app", ["test:build", "vitest unit"]),
    {
      name: "playwright",
      command: "npx",
      args: ["playwright", "test"],
      env: { TEST_REUSE_BUILD: "1" },
      after: ["test:browser", "test:build"],
    },
    // The journeys that load the whole machine (crashes, three instances, the soak, the smoke) run alone.
    vitest("serial", ["vitest app", "playwright"]),
  ],
  started,
);
process.exit(verdict("npm test", results, started));
