// `npm test`: everything, end to end included, on both cores
// (docs/testing.md). The build, the Chromium check and Vitest's `unit` tier
// start at once, with format, lint and typecheck in the background (under
// `nice`); on the build, Playwright and Vitest's `app` tier; then its `serial`
// tier once `app` has passed. Each Vitest tier keeps its embedded PostgreSQL
// in a folder and on ports of its own (TIER below), so that `app` need not wait
// for `unit`; Playwright has its own (scripts/lib/port-plan.ts).
import { npmScript, runSteps, verdict } from "./lib/steps.mjs";

/**
 * A tier's DATA_DIR and TEST_PG_BASE: `unit` the defaults, the others a folder
 * of DATA_DIR and a base 10 ports further on per tier, so that every port the
 * plan derives from it differs from the other tiers' (and a tier's exit never
 * stops a database another still uses).
 */
const TIER = { unit: 0, app: 1, serial: 2 };
function tierDatabase(project) {
  const offset = TIER[project];
  if (offset === 0) return {};
  return {
    DATA_DIR: `${process.env.DATA_DIR || ".data"}/${project}`,
    TEST_PG_BASE: String(Number(process.env.TEST_PG_BASE || 24329) + 10 * offset),
  };
}

/** A Vitest tier as a process of its own, on the build `test:build` made. */
const vitest = (project, after) => ({
  name: `vitest ${project}`,
  command: "npx",
  args: ["vitest", "run", "--project", project],
  env: { ...tierDatabase(project), ...(project === "unit" ? {} : { TEST_REUSE_BUILD: "1" }) },
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
      args: ["playwright", "test"],
      env: { TEST_REUSE_BUILD: "1" },
      after: ["test:browser", "test:build"],
    },
    // The journeys that load the machine (crashes, three instances, the soak, the smoke) come after `app`.
    vitest("serial", ["vitest app"]),
  ],
  started,
);
process.exit(verdict("npm test", results, started));
