/** The emulator as a library: start one in-process (tests, the demo's stack); `./client` drives it over HTTP. */
export { startStripeEmulator, StateFileError, type StripeEmulator, type StripeEmulatorOptions } from "./server";
export { DEFAULT_EMULATOR_PORT } from "./port";
export { DEFAULT_WEBHOOK_SECRET } from "./webhook-config";
