import { execFile } from "node:child_process";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { seedCatalogue } from "@/lib/catalogue/seed";
import { createPrismaClient, queryRows } from "@/lib/db";
import { migrate } from "@/lib/db/migrate";
import { startApp, type AppProcess } from "@/scripts/lib/app-process";
import { startStripeEmulator } from "@checkout/stripe-emulator";
import { freePort, testAppEnv } from "./app-env";
import { TestDb } from "./helpers/db";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { findPgBouncer, startPgBouncer, type PgBouncer } from "./helpers/pgbouncer";
import { cart, newKey, Shopper, waitFor } from "./helpers/shopper";

/**
 * The shop behind a real PgBouncer in transaction mode, as on serverless and
 * managed hosting: two server connections shared by every client, each
 * transaction on whichever is free. With `pgbouncer=true` in DATABASE_URL the
 * app names no statement (lib/db/pooler.ts); the migrations, the seed, the
 * app, its rate limiter and `npm run reconcile` all go through the pooler.
 * Without the flag the app's named statements collide there (42P05).
 *
 * Runs where `pgbouncer` is installed (`apt-get install pgbouncer`; .ci/run
 * installs it); elsewhere it says so, and under CI it fails.
 */
const installed = findPgBouncer();
const SERVER_CONNECTIONS = 2;
const ACTION_TIMEOUT_MS = 2_000;
/** This file's own direct connections to the server, told apart from the pooler's in pg_stat_activity. */
const DIRECT = "pooler-test-direct";

if (!installed) {
  console.log(
    "tests/pooler.test.ts: pgbouncer is neither on the PATH nor in /usr/sbin, so the run behind a transaction pooler is not tested here " +
      "(apt-get install pgbouncer; CI installs it and fails without it)",
  );
}

if (!installed && process.env.CI === "true") {
  it("has pgbouncer installed under CI (.ci/run installs Debian's package)", () => {
    expect(installed, "pgbouncer is neither on the PATH nor in /usr/sbin").not.toBeNull();
  });
}

interface PoolRow {
  database: string;
  pool_mode: string;
}
interface StatsRow {
  database: string;
  total_xact_count: string;
  total_query_count: string;
}
interface ConnectionRow {
  database: string;
  remote_pid?: number;
}

// Skipped only where pgbouncer is missing, which the line above says.
describe.skipIf(!installed)("the shop behind PgBouncer in transaction mode (pgbouncer=true)", () => {
  const shared = new URL(inject("databaseUrl"));
  // checkout_vitest_<pid>_pooler: global setup drops it if this run dies.
  const database = `${shared.pathname.slice(1)}_pooler`;
  const serverUrl = new URL(`/${database}`, shared).toString();
  const lines: string[] = [];
  let pooler: PgBouncer;
  let app: AppProcess;
  let appEnv: Record<string, string>;
  let emulator: EmulatorClient;
  let closeEmulator: () => Promise<void>;
  let db: TestDb;

  beforeAll(async () => {
    await admin(`drop database if exists "${database}" with (force)`);
    await admin(`create database "${database}"`);
    // What the app no longer sends behind the pooler comes from the server.
    await admin(`alter database "${database}" set statement_timeout = '15s'`);
    pooler = await startPgBouncer(installed!.binary, serverUrl, { poolSize: SERVER_CONNECTIONS });
    const url = `${pooler.url}?pgbouncer=true`;
    await migrate(url);
    const seeding = createPrismaClient(url);
    await seedCatalogue(seeding, "usd");
    expect(await queryRows(seeding, "show statement_timeout", [])).toEqual([{ statement_timeout: "15s" }]);
    await seeding.$disconnect();

    const provider = await startStripeEmulator({ port: 0 });
    closeEmulator = () => provider.close();
    emulator = new EmulatorClient(provider.url);
    const port = await freePort();
    appEnv = testAppEnv({
      databaseUrl: url,
      stripeApiBase: provider.url,
      overrides: { PAYMENT_ACTION_TIMEOUT_MS: String(ACTION_TIMEOUT_MS) },
    });
    app = await startApp({ port, env: appEnv, log: (line) => lines.push(line) });
    db = new TestDb(`${serverUrl}?application_name=${DIRECT}`);
  });

  afterAll(async () => {
    await app?.stop();
    await closeEmulator?.();
    await db?.close();
    await pooler?.stop();
    await admin(`drop database if exists "${database}" with (force)`);
  });

  it("is PgBouncer in transaction mode with two server connections", async () => {
    console.log(`tests/pooler.test.ts: ${pooler.version} (${installed!.binary})`);
    const config = Object.fromEntries(
      (await pooler.show<{ key: string; value: string }>("CONFIG")).map((row) => [row.key, row.value]),
    );
    expect(config).toMatchObject({ pool_mode: "transaction", default_pool_size: String(SERVER_CONNECTIONS) });
    expect((await pooler.show<PoolRow>("POOLS")).find((p) => p.database === database)).toMatchObject({
      pool_mode: "transaction",
    });
  });

  it("goes through a checkout, a duplicate's 409, a replay, a 3-D Secure park and the reconciler", async () => {
    const before = await stats();
    const shopper = await Shopper.arrive(app.url);

    // A checkout.
    const key = newKey();
    const paid = await shopper.checkout(key, cart());
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ status: "paid", paymentIntentId: expect.stringMatching(/^pi_/) });

    // A duplicate while the owner's charge is held at the provider: 409 at once, charged once.
    await emulator.faults({ gate: true });
    const second = newKey();
    const owner = shopper.checkout(second, cart());
    await emulator.held(1);
    const duplicate = await shopper.checkout(second, cart());
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ error: "in_progress" });
    expect((await emulator.stats()).charges).toBe(1); // the first checkout's only
    await emulator.faults({ gate: false });
    expect((await owner).status).toBe(201);

    // A replay of the first: the stored answer, no new charge.
    const replay = await shopper.checkout(key, cart());
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(paid.body);
    expect((await emulator.stats()).charges).toBe(2);

    // A card that needs 3-D Secure: parked, waiting for the shopper, who never comes back.
    const parkedKey = newKey();
    const parked = await shopper.checkout(parkedKey, cart("pm_card_threeDSecure2Required"));
    expect(parked.status).toBe(202);
    expect(parked.body).toMatchObject({ status: "requires_action", nextAction: { type: "redirect" } });
    expect(await db.record(shopper.customerId!, parkedKey)).toMatchObject({
      status: "in_progress",
      lock_token: null,
      response_status: 202,
    });

    // The reconciler, a process of its own through the pooler, cancels it once its action timeout passed.
    // Past its action timeout by the database's clock: the parked attempt ages as if the shopper had been away that long.
    expect(
      (await db.ageAttempt(shopper.customerId!, parkedKey, ACTION_TIMEOUT_MS)).next_attempt_in_ms,
    ).toBeLessThanOrEqual(0);
    const run = await reconcile();
    expect(run).toMatchObject({ failed: 1, paid: 0, unknown: 0 });
    const abandoned = await shopper.checkout(parkedKey, cart("pm_card_threeDSecure2Required"));
    expect(abandoned.status).toBe(402);
    expect(abandoned.body).toMatchObject({ error: "authentication_abandoned", orderId: parked.body.orderId });
    const ledger = await emulator.ledger();
    expect(ledger.map((intent) => intent.status).sort()).toEqual(["canceled", "succeeded", "succeeded"]);

    // The rate limiter counted through the pooler too (its statements are named by the library), and so did the claim's admission.
    const counters = await direct<{ prefix: string }>(
      "select distinct split_part(key, ':', 1) as prefix from rate_limit.counters",
    );
    expect(counters.map((c) => c.prefix)).toEqual(expect.arrayContaining(["session_per_address"]));
    const admitted = await direct<{ rule: string }>("select distinct rule from admission_counters order by rule");
    expect(admitted.map((c) => c.rule)).toEqual(["checkout_per_address", "checkout_per_session"]);
    expect(lines.filter((line) => /rate_limit_error|prepared statement|42P05|26000/.test(line))).toEqual([]);

    // All of it went through the pooler: its transactions counted there.
    const after = await stats();
    expect(Number(after.total_xact_count) - Number(before.total_xact_count)).toBeGreaterThanOrEqual(20);
  });

  it("shares its server connections: many app connections, at most two server backends, none direct", async () => {
    // Bursts of 30 requests at once open several of the app's pooled connections (the pool keeps
    // them 10 s). A fast machine can serve one burst on a single connection: up to five bursts.
    let clients: ConnectionRow[] = [];
    for (let burst = 0; burst < 5 && clients.length <= SERVER_CONNECTIONS; burst++) {
      const answers = await Promise.all(Array.from({ length: 30 }, () => fetch(`${app.url}/api/products`)));
      expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
      clients = (await pooler.show<ConnectionRow>("CLIENTS")).filter((c) => c.database === database);
    }
    // A server connection PgBouncer is still opening shows remote_pid 0 until the server's backend
    // has answered: compare the two sides once every one it lists is established.
    const servers = await waitFor("PgBouncer's server connections to be established", async () => {
      const listed = (await pooler.show<ConnectionRow>("SERVERS")).filter((s) => s.database === database);
      return listed.every((s) => Number(s.remote_pid) > 0) ? listed : null;
    });
    expect(clients.length).toBeGreaterThan(SERVER_CONNECTIONS);
    expect(servers.length).toBeGreaterThan(0);
    expect(servers.length).toBeLessThanOrEqual(SERVER_CONNECTIONS);
    // The server sees the pooler's connections only: every backend of the database is one of them.
    const backends = await direct<{ pid: number }>(
      `select pid from pg_stat_activity
        where datname = $1 and backend_type = 'client backend' and application_name <> $2`,
      [database, DIRECT],
    );
    expect(backends.map((b) => b.pid).sort()).toEqual(servers.map((s) => s.remote_pid).sort());
  });

  async function stats(): Promise<StatsRow> {
    const row = (await pooler.show<StatsRow>("STATS")).find((s) => s.database === database);
    if (!row) throw new Error(`PgBouncer has no statistics for ${database}`);
    return row;
  }

  /** `npm run reconcile` with the app's configuration, so through the pooler; its summary line. */
  async function reconcile(): Promise<Record<string, number>> {
    const { stdout } = await promisify(execFile)("npm", ["run", "--silent", "reconcile"], {
      env: { ...process.env, ...appEnv },
      timeout: 60_000,
    });
    const summary = stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, number | string>)
      .find((line) => line.event === "reconcile_run");
    if (!summary) throw new Error(`npm run reconcile printed no summary:\n${stdout}`);
    return summary as Record<string, number>;
  }

  async function direct<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: serverUrl, application_name: DIRECT });
    await client.connect();
    try {
      return (await client.query<T>(sql, values)).rows;
    } finally {
      await client.end();
    }
  }
});

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject("adminDatabaseUrl") });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
