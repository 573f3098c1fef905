// npm run demo — the whole product on embedded defaults: database, migrations,
// catalogue, Stripe emulator, production build, server. Ctrl-C stops all of it.
// Flags: --no-build (reuse the last build), --instances N (N app processes on
// consecutive ports from PORT, one database, one emulator).
import { randomBytes } from "node:crypto";
import path from "node:path";
import "./lib/dotenv";
import { parseEnv } from "@/lib/env";
import { runUntilSignal } from "./lib/run-until-signal";
import { kept, startStack } from "./lib/stack";

runUntilSignal(async () => {
  const env = parseEnv();
  const log = (line: string) => console.log(`[demo] ${line}`);
  const instances = instancesFlag(process.argv);
  // The operator's page is served only with a token: the demo makes one and says where it is.
  const opsTokenFile = path.join(env.DATA_DIR, "ops-token");
  const opsToken = env.OPS_TOKEN ?? kept(env.DATA_DIR, "ops-token", () => randomBytes(32).toString("hex"));
  const stack = await startStack({
    env,
    appPort: env.PORT,
    // This machine only (the lab's naive route charges twice on purpose), unless HOST says otherwise.
    hostname: env.HOST ?? "localhost",
    startEmulator: true,
    // Like Stripe, the emulator tells the app about every payment by webhook, and keeps its ledger
    // beside the database's orders: a restart on the same DATA_DIR finds both.
    emulatorWebhooks: true,
    emulatorStateFile: path.resolve(env.DATA_DIR, "stripe-emulator.state"),
    generateSessionSecret: true,
    build: !process.argv.includes("--no-build"),
    instances,
    log,
    appLog: (line) => console.log(`[app] ${line}`),
    // The demo shows the lab (on the emulator only; LAB_NAIVE_ENDPOINT=0 hides it)
    // and finishes abandoned attempts every 15 s, as cron would in production.
    appEnv: {
      LAB_NAIVE_ENDPOINT: process.env.LAB_NAIVE_ENDPOINT || (env.usesStripeEmulator ? "1" : "0"),
      MAINTENANCE_INTERVAL_MS: process.env.MAINTENANCE_INTERVAL_MS || "15000",
      OPS_TOKEN: opsToken,
    },
  });
  log("");
  log(
    `The operator's page: ${stack.app.url}/ops · sign in with ${env.OPS_TOKEN ? "OPS_TOKEN" : `the token in ${opsTokenFile}`}`,
  );
  log(`Ready: open ${stack.apps.map((a) => a.url).join(" , ")}`);
  log("Press Ctrl-C to stop the app, the emulator and the database.");
  return stack;
});

function instancesFlag(argv: string[]): number {
  const at = argv.indexOf("--instances");
  if (at === -1) return 1;
  const n = Number(argv[at + 1]);
  if (!Number.isInteger(n) || n < 1 || n > 16) {
    console.error("--instances takes a whole number from 1 to 16");
    process.exit(1);
  }
  return n;
}
