// npm run demo — the whole product on embedded defaults: database, migrations,
// catalogue, Stripe emulator, production build, server. Ctrl-C stops all of it.
// Flags: --no-build (reuse the last build).
import "./lib/dotenv";
import { parseEnv } from "../lib/env";
import { runUntilSignal } from "./lib/run-until-signal";
import { startStack } from "./lib/stack";

runUntilSignal(async () => {
  const env = parseEnv();
  const log = (line: string) => console.log(`[demo] ${line}`);
  const stack = await startStack({
    env,
    appPort: env.PORT,
    startEmulator: true,
    build: !process.argv.includes("--no-build"),
    log,
    appLog: (line) => console.log(`[app] ${line}`),
    // The demo shows the lab's naive lane unless LAB_NAIVE_ENDPOINT=0 says otherwise.
    appEnv: { LAB_NAIVE_ENDPOINT: process.env.LAB_NAIVE_ENDPOINT || "1" },
  });
  log("");
  log(`Ready: open ${stack.app.url}`);
  log("Press Ctrl-C to stop the app, the emulator and the database.");
  return stack;
});
