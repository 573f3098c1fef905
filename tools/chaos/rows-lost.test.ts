import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { TestDb } from "@/tests/helpers/db";
import { Journal, REFUSED_BY_STRIPE_JS } from "./journal";
import { createRandom } from "./random";
import { loseRecentAttempt } from "./rows-lost";

/**
 * The soak's `rows_lost` fault on the test database: it loses only an attempt
 * that reached the shop, and a pick that finds nothing to lose (its claim not
 * yet written) picks again, so that the fault happens whenever one of the
 * newest attempts has rows.
 */
const url = inject("databaseUrl");
const db = new TestDb();
const customerId = randomUUID();

beforeAll(async () => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("insert into customers (id) values ($1::uuid)", [customerId]);
  await client.end();
});
afterAll(() => db.close());

/** An attempt that reached the shop, in the journal only: its claim is not written yet. */
const reached = (journal: Journal) =>
  journal.open({ id: randomUUID(), customerId, card: "visa", credential: "ctoken_test", amountCents: 1_800 }).id;

/** Attempts Stripe.js refused: they never reach the shop, so nothing of theirs can be lost. */
const refused = (journal: Journal, n: number) => {
  for (let i = 0; i < n; i++) {
    const log = journal.open({ id: randomUUID(), customerId, card: "declined", credential: "", amountCents: 1_800 });
    log.outcome = `${REFUSED_BY_STRIPE_JS}card_declined`;
  }
};

describe("the rows_lost fault", () => {
  it("passes over attempts Stripe.js refused, and picks again when its pick has no rows yet", async () => {
    const journal = new Journal();
    const written = reached(journal);
    await db.insertAttempt({
      recordId: randomUUID(),
      customerId,
      key: written,
      orderId: randomUUID(),
      amountCents: 1_800,
      paymentMethod: "pm_card_visa",
    });
    const unwritten = reached(journal);
    refused(journal, 8); // the eight newest: a pick among them alone would never lose anything

    const seed = 3;
    // This seed's first pick among the two that reached the shop is the one with no rows.
    expect(createRandom(seed).pick([written, unwritten])).toBe(unwritten);
    const lost = await loseRecentAttempt(url, journal, createRandom(seed), 30_000);
    expect(lost).toEqual({ key: written, keys: 1, orders: 1 });
    expect(await db.stored(customerId, written)).toMatchObject({ keys: 0 });
  });

  it("answers null when no recent attempt has rows within its time", async () => {
    const journal = new Journal();
    reached(journal);
    refused(journal, 2);
    const started = Date.now();
    expect(await loseRecentAttempt(url, journal, createRandom(1), 500)).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });
});
