/**
 * Sets variables in this process's environment and returns what puts them
 * back. The `unit` tier shares a worker's process and modules between files
 * (`isolate: false`), so a file that needs a configuration of its own sets it
 * here, loads the modules that read it afresh (`vi.resetModules()`, then a
 * dynamic import), and restores the environment when it ends.
 */
export function withEnv(vars: Record<string, string>): () => void {
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
