import { vi } from "vitest";

/**
 * Loads modules afresh under a configuration of the file's own, and returns
 * them with what puts the environment back. The `unit` tier shares a worker's
 * process and modules between files (`isolate: false`), and the configuration
 * is read once per process (lib/env.ts), so such a file sets its variables,
 * loads the modules that read them anew (`vi.resetModules()`, then `load`),
 * and calls `restore` when it ends.
 */
export async function importWithEnv<T>(
  vars: Record<string, string>,
  load: () => Promise<T>,
): Promise<{ module: T; restore: () => void }> {
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  const restore = () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  vi.resetModules();
  return { module: await load(), restore };
}
