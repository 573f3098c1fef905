// Runs commands at the same time, so both cores stay busy while tests wait on
// the database, the emulator or the browser. A step starts once the steps it
// comes `after` have passed (and is not run when one failed). Each step's
// output is printed whole when it ends, under a line with its verdict and the
// time since the start; the failed ones are named again at the end, each with
// the lines of its output that name a failure, since a CI log is often read
// from its tail only.
import { spawn } from "node:child_process";
import { stripVTControlCharacters } from "node:util";

/**
 * A `background` step runs under `nice`: pure CPU work (format, lint, typecheck) that fills the
 * cores the tests leave idle without slowing the tests that are timed.
 * @typedef {{ name: string; command: string; args: string[]; env?: Record<string, string>; after?: string[]; background?: boolean }} Step
 * @typedef {{ name: string; ok: boolean; failures?: string[] }} StepResult
 */

/** Runs `steps`, each as soon as what it comes after has passed; resolves when all have ended. */
export function runSteps(/** @type {Step[]} */ steps, started = Date.now()) {
  /** @type {Map<string, Promise<StepResult>>} */
  const running = new Map();
  for (const step of steps) {
    const before = (step.after ?? []).map((name) => {
      const promise = running.get(name);
      if (!promise) throw new Error(`step ${step.name} comes after ${name}, which is not listed before it`);
      return promise;
    });
    running.set(
      step.name,
      Promise.all(before).then((results) => {
        const failed = results.filter((r) => !r.ok).map((r) => r.name);
        if (failed.length === 0) return runStep(step, started);
        process.stdout.write(`\n--- ${step.name}: not run, after the failure of ${failed.join(", ")}\n`);
        return { name: step.name, ok: false };
      }),
    );
  }
  return Promise.all(running.values());
}

/** @returns {Promise<StepResult>} */
function runStep(/** @type {Step} */ step, /** @type {number} */ started) {
  const since = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  process.stdout.write(`--- ${step.name}: started at ${since()}\n`);
  return new Promise((resolve) => {
    const [command, args] = step.background
      ? ["nice", ["-n", "10", step.command, ...step.args]]
      : [step.command, step.args];
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...step.env },
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code, signal) => {
      const verdict = code === 0 ? "ok" : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(`\n--- ${step.name}: ${verdict} at ${since()}\n${output}`);
      resolve({ name: step.name, ok: code === 0, failures: code === 0 ? [] : failureLines(output) });
    });
  });
}

// Where Vitest or Playwright details a failure: `FAIL file > test`, `n) file › test`, an unhandled error.
const DETAILS_A_FAILURE = /\bFAIL\b|^\s*\d+\) |Unhandled (Error|Rejection)/;
// What else names one: Vitest's `× test`, Playwright's `✘ n file › test`, both's `n failed`, and
// ESLint's, TypeScript's and Prettier's findings.
const NAMES_A_FAILURE = /^\s*[×✘]\s|\b\d+ failed\b|^\s+\d+:\d+\s+error\s|✖ \d+ problem|error TS\d+|^\[warn\]/;
// An error's first line, kept within a few lines of a failure's details, not elsewhere: the tests' own logs print errors too.
const AN_ERROR = /\w*Error:/;
const ERROR_WITHIN_LINES = 4;
const MAX_FAILURE_LINES = 40;

/** The lines of a failed step's output that name what failed, and the errors under them, without colour. */
export function failureLines(/** @type {string} */ output) {
  const kept = [];
  let sinceDetail = Infinity;
  for (const raw of stripVTControlCharacters(output).split("\n")) {
    const line = raw.replace(/[\s─⎯]+$/, "");
    const details = DETAILS_A_FAILURE.test(line);
    sinceDetail = details ? 0 : sinceDetail + 1;
    if (details || NAMES_A_FAILURE.test(line) || (sinceDetail <= ERROR_WITHIN_LINES && AN_ERROR.test(line)))
      kept.push(line);
  }
  const unique = [...new Set(kept)];
  return unique.length > MAX_FAILURE_LINES
    ? [...unique.slice(0, MAX_FAILURE_LINES), `… and ${unique.length - MAX_FAILURE_LINES} more`]
    : unique;
}

/** `npm run -s <script>` as a step. */
export function npmScript(/** @type {string} */ script, /** @type {Partial<Step>} */ options = {}) {
  return { name: script, command: "npm", args: ["run", "-s", script], ...options };
}

/** Prints the final line; returns the exit code. */
export function verdict(/** @type {string} */ command, /** @type {StepResult[]} */ results, started = Date.now()) {
  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  for (const result of results) {
    if (result.failures?.length)
      console.log(`\n--- what ${result.name} names as failed:\n${result.failures.join("\n")}`);
  }
  console.log(
    failed.length === 0
      ? `\n${command} passed in ${seconds} s`
      : `\n${command} failed after ${seconds} s: ${failed.join(", ")}`,
  );
  return failed.length === 0 ? 0 : 1;
}
