// `npm test`: everything, end to end included, on both cores
// (docs/testing.md). Chromium check, format, lint, typecheck, the build and
// Vitest's `unit` tier start at once; on the build, Vitest's `serial` tier,
// its `app` tier (after `unit`) and Playwright, each as a process of its own
// with its own embedded PostgreSQL (scripts/lib/port-plan.ts).
import { npmScript, runSteps, verdict } from "./lib/steps.mjs";

/** A Vitest tier as a process of its own, on the build `test:build` made. */
const vitest = (project, after) => ({
  name: `vitest ${project}`,
  command: "npx",
  args: ["vitest", "run", "--project", project],
  env: project === "unit" ? {} : { TEST_REUSE_BUILD: "1", TEST_STACK: `vitest-${project}` },
  after,
});

/** Format, lint and typecheck gate nothing: at a lower priority, so the build and the tests go first. */
const checkAside = (script) => ({ name: script, command: "nice", args: ["-n", "10", "npm", "run", "-s", script] });

const started = Date.now();
const results = await runSteps(
  [
    npmScript("test:browser"),
    checkAside("format:check"),
    checkAside("lint"),
    checkAside("typecheck"),
    npmScript("test:build"),
    vitest("unit", []),
    vitest("serial", ["test:build"]),
    vitest("app", ["test:build", "vitest unit"]),
    {
      name: "playwright",
      command: "npx",
      args: ["playwright", "test"],
      env: { TEST_REUSE_BUILD: "1" },
      after: ["test:browser", "test:build"],
    },
  ],
  started,
);
process.exit(verdict("npm test", results, started));
