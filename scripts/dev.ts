// npm run dev — `next dev` with hot reload, on the embedded database (unless
// DATABASE_URL) and the Stripe emulator (unless a real key), migrated and
// seeded, with generated secrets like the demo's. For working on the code;
// `npm run demo` shows the production build.
import "./lib/dotenv";
import { parseEnv } from "@/lib/env";
import { runUntilSignal } from "./lib/run-until-signal";
import { startStack } from "./lib/stack";

runUntilSignal(async () => {
  const env = parseEnv({ ...process.env, NODE_ENV: "development" });
  const log = (line: string) => console.log(`[dev] ${line}`);
  const stack = await startStack({
    env,
    appPort: env.PORT,
    hostname: env.HOST ?? "localhost",
    startEmulator: true,
    emulatorWebhooks: true,
    generateSessionSecret: true,
    build: false,
    dev: true,
    log,
    appLog: (line) => console.log(`[next] ${line}`),
    appEnv: { MAINTENANCE_INTERVAL_MS: process.env.MAINTENANCE_INTERVAL_MS || "15000" },
  });
  log(`Ready: open ${stack.app.url} (hot reload on)`);
  log("Press Ctrl-C to stop the app, the emulator and the database.");
  return stack;
});
