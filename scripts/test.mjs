// `npm test`: everything, end to end included, on both cores
// (docs/testing.md). The build, the Chromium check and Vitest's `unit` tier
// start at once, with format, lint and typecheck in the background (under
// `nice`); on the build, Playwright and Vitest's `app` tier; then its `serial`
// tier once `app` has passed. Each Vitest tier names itself in TEST_TIER and so
// keeps its embedded PostgreSQL in a folder and on ports of its own, so that
// `app` need not wait for `unit`; Playwright has its own (scripts/lib/port-plan.ts).
// Last, alone, Lighthouse's speed budget (e2e/page-speed.spec.ts).
import { npmScript, runSteps, verdict } from "./lib/steps.mjs";

/** A Vitest tier as a process of its own, on the build `test:build` made. */
const vitest = (project, after) => ({
  name: `vitest ${project}`,
  command: "npx",
  args: ["vitest", "run", "--project", project],
  env: { TEST_TIER: project, ...(project === "unit" ? {} : { TEST_REUSE_BUILD: "1" }) },
  after,
});

const started = Date.now();
const results = await runSteps(
  [
    npmScript("test:browser"),
    npmScript("test:build"),
    npmScript("format:check", { background: true }),
    npmScript("lint", { background: true }),
    npmScript("typecheck", { background: true }),
    vitest("unit", []),
    vitest("app", ["test:build"]),
    {
      name: "playwright",
      command: "npx",
      args: ["playwright", "test", "--project", "chromium", "--project", "phone", "--project", "serial"],
      env: { TEST_REUSE_BUILD: "1" },
      after: ["test:browser", "test:build"],
    },
    // The journeys that load the machine (crashes, three instances, the soak, the smoke) come after `app`.
    vitest("serial", ["vitest app"]),
    // Lighthouse's timings are the page's only on a quiet machine: the speed budget runs last, alone.
    {
      name: "page speed",
      command: "npx",
      args: ["playwright", "test", "--project", "page-speed", "--no-deps"],
      env: { TEST_REUSE_BUILD: "1" },
      after: ["format:check", "lint", "typecheck", "vitest unit", "playwright", "vitest serial"],
    },
  ],
  started,
);
process.exit(verdict("npm test", results, started));
