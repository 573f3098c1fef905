import { afterAll, beforeAll, beforeEach } from "vitest";
import { startTestApp, type TestApp } from "../app-server";
import { TestDb } from "./db";
import { createOwnDatabase, type OwnDatabase } from "./own-database";
import { Emulator } from "./emulator";
import { Shopper } from "./shopper";

/**
 * One real app server (and its own Stripe emulator) per test file, started in
 * beforeAll; the emulator is reset before every test so faults, counters and
 * the ledger never leak from one test into the next.
 */
export interface Harness {
  readonly app: TestApp;
  readonly url: string;
  readonly emulator: Emulator;
  readonly db: TestDb;
  /** A new shopper with a fresh guest session. */
  shopper(): Promise<Shopper>;
}

export function useTestApp(env: Record<string, string> = {}, options: { ownDatabase?: string } = {}): Harness {
  let app: TestApp | undefined;
  let emulator: Emulator | undefined;
  let db: TestDb | undefined;
  let own: OwnDatabase | undefined;

  beforeAll(async () => {
    own = options.ownDatabase ? await createOwnDatabase(options.ownDatabase) : undefined;
    app = await startTestApp(own ? { ...env, DATABASE_URL: own.url } : env);
    emulator = new Emulator(app.emulator.url);
    db = new TestDb(own?.url);
  });
  afterAll(async () => {
    await app?.stop();
    await db?.close();
    await own?.drop();
  });
  beforeEach(async () => {
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
