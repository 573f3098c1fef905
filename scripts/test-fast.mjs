// `npm run test:fast`: format check, lint, typecheck and Vitest's `unit` tier
// (no build, no app server) at the same time, so the two cores are busy while
// the tests wait on the database. Each step's output is printed whole when it
// ends; the exit code is 1 when any step failed, and the failed ones are named.
import { spawn } from "node:child_process";

const steps = [
  ["format:check", ["run", "-s", "format:check"]],
  ["lint", ["run", "-s", "lint"]],
  ["typecheck", ["run", "-s", "typecheck"]],
  ["vitest unit", ["exec", "--", "vitest", "run", "--project", "unit"]],
];

const started = Date.now();
const results = await Promise.all(
  steps.map(
    ([name, args]) =>
      new Promise((resolve) => {
        const child = spawn("npm", args, { stdio: ["ignore", "pipe", "pipe"], env: process.env });
        let output = "";
        child.stdout.on("data", (chunk) => (output += chunk));
        child.stderr.on("data", (chunk) => (output += chunk));
        child.on("close", (code) => {
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          process.stdout.write(
            `\n--- ${name}: ${code === 0 ? "ok" : `failed (exit ${code})`} after ${seconds} s\n${output}`,
          );
          resolve({ name, ok: code === 0 });
        });
      }),
  ),
);
const failed = results.filter((r) => !r.ok).map((r) => r.name);
console.log(
  failed.length === 0
    ? `\ntest:fast passed in ${((Date.now() - started) / 1000).toFixed(1)} s`
    : `\ntest:fast failed: ${failed.join(", ")}`,
);
process.exit(failed.length === 0 ? 0 : 1);
