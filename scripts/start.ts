// npm start — the built app against the configured services. Only the
// embedded database is started here when DATABASE_URL is unset; Stripe (or an
// emulator from `npm run stripe:emulator`) must already be reachable.
import "./lib/dotenv";
import { parseEnv } from "@/lib/env";
import { runUntilSignal } from "./lib/run-until-signal";
import { startStack } from "./lib/stack";

runUntilSignal(async () => {
  const env = parseEnv();
  const stack = await startStack({
    env,
    appPort: env.PORT,
    startEmulator: false,
    build: false,
    log: (line) => console.log(`[start] ${line}`),
    appLog: (line) => console.log(line),
  });
  console.log(`[start] Ready on ${stack.app.url}`);
  return stack;
});
