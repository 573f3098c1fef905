// Runs commands at the same time, so both cores stay busy while tests wait on
// the database, the emulator or the browser. Each step's output is printed
// whole when it ends, under a line with its verdict and time; a failed step
// is named again at the end.
import { spawn } from "node:child_process";

/**
 * @typedef {{ name: string; command: string; args: string[]; env?: Record<string, string> }} Step
 * @typedef {{ name: string; ok: boolean; seconds: number }} StepResult
 */

/** Runs `steps` at once; resolves when all have ended. */
export function runAtOnce(/** @type {Step[]} */ steps, started = Date.now()) {
  return Promise.all(steps.map((step) => runStep(step, started)));
}

/** @returns {Promise<StepResult>} */
function runStep(/** @type {Step} */ step, /** @type {number} */ started) {
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...step.env },
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      const verdict = code === 0 ? "ok" : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(`\n--- ${step.name}: ${verdict} after ${seconds.toFixed(1)} s\n${output}`);
      resolve({ name: step.name, ok: code === 0, seconds });
    });
  });
}

/** `npm run -s <script>` as a step. */
export function npmScript(/** @type {string} */ script, env = {}) {
  return { name: script, command: "npm", args: ["run", "-s", script], env };
}

/** The final line and exit code of a run made of `results`. */
export function verdict(/** @type {string} */ command, /** @type {StepResult[]} */ results, started = Date.now()) {
  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    failed.length === 0
      ? `\n${command} passed in ${seconds} s`
      : `\n${command} failed after ${seconds} s: ${failed.join(", ")}`,
  );
  return failed.length === 0 ? 0 : 1;
}
