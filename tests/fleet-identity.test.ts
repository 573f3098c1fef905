import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeEmulator, type StripeEmulator } from "@checkout/stripe-emulator";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { startTestApp, type TestApp } from "./app-server";
import { TestDb } from "./helpers/db";
import { createOwnDatabase, type OwnDatabase } from "./helpers/own-database";
import { makeScratchDir, removeScratchDir } from "./helpers/scratch";
import { cart, newKey, Shopper, sleep, waitFor } from "./helpers/shopper";

/**
 * A fleet of plain `next start` instances without SHOP_ID, each with a data
 * folder of its own, on one database that `npm run db:migrate` named. They
 * are one shop: when instance A dies after Stripe charged, the shopper's
 * retry on B finds A's charge and pays the order with it, instead of judging
 * it another shop's and charging again.
 */
const TTL_MS = 60_000;
const SHOP = "fleet-shop";

let own: OwnDatabase;
let emulator: StripeEmulator;
let provider: EmulatorClient;
let db: TestDb;
const fleet: TestApp[] = [];
const folders: string[] = [];

beforeAll(async () => {
  own = await createOwnDatabase("fleet");
  // As a deploy names its database: the migration step with SHOP_ID, once.
  const migrate = spawnSync(
    process.execPath,
    ["--import", "tsx", "--import", "./scripts/lib/allow-server-only.mjs", "scripts/db-migrate.ts"],
    { env: { ...process.env, DATABASE_URL: own.url, SHOP_ID: SHOP }, encoding: "utf8" },
  );
  expect(migrate.status, migrate.stderr).toBe(0);
  expect(migrate.stdout).toContain(`shop     ${SHOP}`);
  emulator = await startStripeEmulator({ port: 0 });
  provider = new EmulatorClient(emulator.url);
  db = new TestDb(own.url);
  for (const name of ["a", "b"]) {
    folders.push(await makeScratchDir(`fleet-${name}-`));
    fleet.push(
      await startTestApp(
        {
          DATABASE_URL: own.url,
          SHOP_ID: "", // unset: the instance takes the database's
          DATA_DIR: folders.at(-1)!,
          IDEMPOTENCY_IN_PROGRESS_TTL_MS: String(TTL_MS),
          STRIPE_TIMEOUT_MS: "5000",
          STRIPE_MAX_NETWORK_RETRIES: "0",
        },
        emulator,
      ),
    );
  }
}, 180_000);

afterAll(async () => {
  for (const app of fleet) await app.stop();
  await emulator?.close();
  await db?.close();
  await own?.drop();
  for (const folder of folders) await removeScratchDir(folder);
});

describe("instances of one database without SHOP_ID", () => {
  it("settle each other's attempts: A dies after Stripe charged, the retry on B pays the order with that charge", async () => {
    const [a, b] = fleet as [TestApp, TestApp];
    const shopper = await Shopper.arrive(a.url);
    const key = newKey();

    await provider.faults({ gate: true });
    const doomed = shopper.checkout(key, cart()).then(
      (answer) => ({ answered: answer.status }),
      (error: unknown) => ({ failed: String(error) }),
    );
    await provider.held(1); // A's create-and-confirm is in flight
    await a.app.stop("SIGKILL");
    expect(await doomed).toMatchObject({ failed: expect.stringContaining("fetch failed") });
    expect(await provider.faults({ gate: false })).toMatchObject({ held: 0, stats: { gated: 1 } });
    await waitFor("A's charge to land", async () => (await provider.stats()).charges === 1, 10_000);
    const [charged] = await provider.ledger();
    expect(charged).toMatchObject({ status: "succeeded", metadata: { shop: SHOP, idempotencyKey: key } });

    // The shopper comes back later, on another instance, with the same session.
    await db.ageAttempt(shopper.customerId!, key, TTL_MS);
    const onB = new Shopper(b.url);
    onB.cookie = shopper.cookie;
    onB.customerId = shopper.customerId;
    let retry = await onB.checkout(key, cart());
    for (let i = 0; retry.status === 409 && i < 10; i++) {
      await sleep(500);
      retry = await onB.checkout(key, cart());
    }
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.body).toMatchObject({ status: "paid", paymentIntentId: charged!.id });

    const ledger = await provider.ledger();
    expect(ledger).toHaveLength(1); // one charge for the order
    expect(await provider.stats()).toMatchObject({ charges: 1 });
    expect((await db.ordersOf(shopper.customerId!)).map((o) => o.status)).toEqual(["paid"]);
  });
});
