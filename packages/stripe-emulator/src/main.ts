/**
 * `npm run stripe:emulator`: the emulator as a process, for the demo and for
 * pointing a dev server at it (`STRIPE_API_BASE=http://127.0.0.1:12111`).
 * `STRIPE_WEBHOOK_URL` (unset: no deliveries) and `STRIPE_WEBHOOK_SECRET`
 * (default whsec_emulator) set where events are delivered and how they are signed.
 * `STRIPE_EMULATOR_STATE` (unset: nothing kept) names a file that keeps the
 * default account's records across restarts (persistence.ts).
 */
import { parseEmulatorPort } from "./port";
import { startStripeEmulator, StateFileError } from "./server";
import { DEFAULT_WEBHOOK_SECRET } from "./webhook-config";

const parsed = parseEmulatorPort(process.env.STRIPE_EMULATOR_PORT);
if (!parsed.ok) {
  console.error(parsed.message);
  process.exit(1);
}

const webhookUrl = process.env.STRIPE_WEBHOOK_URL?.trim() || null;
if (webhookUrl !== null && !/^https?:\/\//.test(webhookUrl)) {
  console.error(`STRIPE_WEBHOOK_URL must be an http(s) URL, got "${webhookUrl}".`);
  process.exit(1);
}

const stateFile = process.env.STRIPE_EMULATOR_STATE?.trim() || undefined;

let emulator;
try {
  emulator = await startStripeEmulator({
    port: parsed.port,
    log: (line) => console.log(line),
    webhook: { url: webhookUrl, secret: process.env.STRIPE_WEBHOOK_SECRET || DEFAULT_WEBHOOK_SECRET },
    stateFile,
  });
} catch (error) {
  if (error instanceof StateFileError) {
    console.error(`STRIPE_EMULATOR_STATE: ${error.message}; move it away to start with an empty account.`);
    process.exit(1);
  }
  const reason = error instanceof Error ? error.message : String(error);
  console.error(`Stripe emulator could not listen on port ${parsed.port} (STRIPE_EMULATOR_PORT): ${reason}`);
  process.exit(1);
}
console.log(`Stripe emulator listening on ${emulator.url}${stateFile ? ` · records kept in ${stateFile}` : ""}`);

const running = emulator;
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return; // a second Ctrl-C while closing changes nothing
    stopping = true;
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("Stripe emulator failed to close cleanly:", error);
        process.exit(1);
      },
    );
  });
}
