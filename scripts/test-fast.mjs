// `npm run test:fast`: format check, lint, typecheck and Vitest's `unit` tier
// (no build, no app server), all at once (scripts/lib/steps.mjs).
import { npmScript, runSteps, verdict } from "./lib/steps.mjs";

const started = Date.now();
const results = await runSteps(
  [
    npmScript("format:check"),
    npmScript("lint"),
    npmScript("typecheck"),
    { name: "vitest unit", command: "npx", args: ["vitest", "run", "--project", "unit"] },
  ],
  started,
);
process.exit(verdict("test:fast", results, started));
