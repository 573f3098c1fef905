import { ConfigError } from "@/lib/env";

/** Runs a CLI entry point: prints a clear message and exits 1 on failure. */
export function runScript(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err instanceof ConfigError ? err.message : err);
      process.exit(1);
    },
  );
}
