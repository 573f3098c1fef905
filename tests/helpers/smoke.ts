import { spawn } from "node:child_process";

/** `[journey, outcome]` of each journey line. */
export function journeyLines(stdout: string): string[][] {
  return stdout
    .split("\n")
    .map((line) => /^(\S+) +(passed|failed|skipped)\b/.exec(line))
    .filter((m) => m !== null)
    .map((m) => [m[1]!, m[2]!]);
}

/** `npm run smoke:stripe -- …` as a person runs it, with only the given Stripe variables. */
export function smoke(args: string[], env: Record<string, string>) {
  const { STRIPE_SECRET_KEY: _key, STRIPE_API_BASE: _base, ...rest } = process.env;
  const child = spawn("npm", ["run", "-s", "smoke:stripe", "--", ...args], {
    env: { ...rest, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c));
  child.stderr.on("data", (c: Buffer) => (stderr += c));
  return new Promise<{ code: number | null; stdout: string; stderr: string; output: string }>((resolve) =>
    child.once("exit", (code) => resolve({ code, stdout, stderr, output: stdout + stderr })),
  );
}
