import type { ShopCurrency } from "@/lib/env";
import { formatMoney } from "@/lib/money";
import { PORT_PLAN } from "@/scripts/lib/port-plan";
import { TEST_DIST_DIR } from "@/tests/constants";

/** Where the end-to-end stack listens: beside, never on, a running demo's ports. */
const appPort = Number(process.env.E2E_APP_PORT || PORT_PLAN.e2e.app);
const emulatorPort = Number(process.env.E2E_EMULATOR_PORT || PORT_PLAN.e2e.emulator);

export const E2E = {
  appPort,
  appUrl: `http://localhost:${appPort}`,
  emulatorPort,
  emulatorUrl: `http://127.0.0.1:${emulatorPort}`,
  database: process.env.E2E_DATABASE || "checkout_e2e",
  distDir: TEST_DIST_DIR,
  /** The shop offers SEPA Debit, iDEAL and Bancontact, which Stripe takes in EUR only. */
  currency: "eur" satisfies ShopCurrency,
} as const;

/** An amount as the end-to-end shop shows it ("€68.00"). */
export const money = (cents: number): string => formatMoney(cents, E2E.currency);

/** Set by global-setup: the environment (database URL, emulator, session secret, build) the workers' app servers start from, as JSON. */
export const STACK_APP_ENV = "E2E_STACK_APP_ENV";
