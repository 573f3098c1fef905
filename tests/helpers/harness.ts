import { afterAll, beforeAll, beforeEach } from "vitest";
import { sharedTestApp, startTestApp, type TestApp } from "../app-server";
import { TestDb } from "./db";
import { createOwnDatabase, type OwnDatabase } from "./own-database";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { Shopper } from "./shopper";

/**
 * A real app server for a test file. On the default configuration it is the
 * worker's shared server (tests/app-global-setup.ts); a file that sets
 * variables or wants its own database starts a server (and a Stripe emulator)
 * of its own in beforeAll. The app's account at the emulator is reset before
 * every test, so faults, counters and the ledger never leak from one test
 * into the next, nor into the files other workers run beside it; a server a
 * failed test left killed is started again before the next one.
 */
export interface Harness {
  readonly app: TestApp;
  readonly url: string;
  readonly emulator: EmulatorClient;
  readonly db: TestDb;
  /** A new shopper with a fresh guest session. */
  shopper(): Promise<Shopper>;
}

export function useTestApp(env: Record<string, string> = {}, options: { ownDatabase?: string } = {}): Harness {
  let app: TestApp | undefined;
  let emulator: EmulatorClient | undefined;
  let db: TestDb | undefined;
  let own: OwnDatabase | undefined;

  beforeAll(async () => {
    // Seeded in the currency its server prices in.
    own = options.ownDatabase
      ? await createOwnDatabase(options.ownDatabase, env.SHOP_CURRENCY === "eur" ? "eur" : "usd")
      : undefined;
    const shared = own || Object.keys(env).length > 0 ? null : sharedTestApp();
    app = shared ?? (await startTestApp(own ? { ...env, DATABASE_URL: own.url } : env));
    emulator = new EmulatorClient(app.emulator.url, { apiKey: shared ? app.emulator.apiKey : null });
    db = new TestDb(own?.url);
  });
  afterAll(async () => {
    await app?.stop();
    await db?.close();
    await own?.drop();
  });
  beforeEach(async () => {
    await app?.revive();
    await emulator?.reset();
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started (use it inside a test)`);
    return value;
  };
  return {
    get app() {
      return ready(app, "the app");
    },
    get url() {
      return ready(app, "the app").url;
    },
    get emulator() {
      return ready(emulator, "the emulator");
    },
    get db() {
      return ready(db, "the database");
    },
    shopper() {
      return Shopper.arrive(ready(app, "the app").url);
    },
  };
}
