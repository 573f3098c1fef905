import pg from "pg";
import { sleep } from "@/lib/sleep";
import { REFUSED_BY_STRIPE_JS, type Journal } from "./journal";
import { within } from "./within";
import type { Random } from "./random";

/**
 * The "rows lost" fault: an attempt's rows — its idempotency record, its
 * order and the order's lines — deleted at a random point of its life, as a
 * failover to an asynchronous replica loses the last commits. The attempt is
 * one of the most recent, since a replica lags by its newest writes.
 */
const RECENT_ATTEMPTS = 8;

/**
 * Deletes an attempt's record, its order and (by cascade) the order's lines,
 * for customer `$1` and key `$2`; answers how many records and orders went.
 * The tests lose an attempt with the same statement (tests/helpers/db.ts).
 */
export const LOSE_ATTEMPT_SQL = `with record as (
    select id from idempotency_keys where subject_id = $1 and key = lower($2)::uuid
  ), lost_orders as (
    delete from orders where idempotency_key_id in (select id from record) returning id
  ), lost_keys as (
    delete from idempotency_keys where id in (select id from record) returning id
  )
  select (select count(*) from lost_keys)::int as keys, (select count(*) from lost_orders)::int as orders`;

/** An attempt whose rows were deleted, and how many records and orders went. */
export interface LostAttempt {
  key: string;
  keys: number;
  orders: number;
}

/**
 * Loses one of the most recent attempts that reached the shop, at a random
 * point of its life. A pick whose rows are not written yet, or a database
 * that is down at that moment (a restart, a failover), loses nothing: it picks
 * again until rows are lost or `withinMs` has passed. Answers what went, or
 * null if nothing did.
 */
export async function loseRecentAttempt(
  databaseUrl: string,
  journal: Journal,
  random: Random,
  withinMs: number,
): Promise<LostAttempt | null> {
  let lost: LostAttempt | null = null;
  await within(withinMs, async () => {
    const tried = await loseOne(databaseUrl, journal, random).catch(() => null);
    if (tried && tried.keys + tried.orders > 0) lost = tried;
    return lost !== null;
  });
  return lost;
}

async function loseOne(databaseUrl: string, journal: Journal, random: Random): Promise<LostAttempt | null> {
  // An attempt Stripe.js refused never reached the shop: it has no rows to lose.
  const reached = [...journal.attempts.values()].filter((a) => !a.outcome.startsWith(REFUSED_BY_STRIPE_JS));
  const recent = reached.slice(-RECENT_ATTEMPTS);
  if (recent.length === 0) return null;
  const attempt = random.pick(recent);
  // Anywhere from before its claim is written to just after its answer.
  await sleep(random.int(0, 1_500));
  const db = new pg.Client({ connectionString: databaseUrl });
  db.on("error", () => undefined); // cut by a failover: the query fails, the soak goes on
  await db.connect();
  try {
    const { rows } = await db.query<{ keys: number; orders: number }>(LOSE_ATTEMPT_SQL, [
      attempt.customerId,
      attempt.id,
    ]);
    return { key: attempt.id, ...rows[0]! };
  } finally {
    await db.end();
  }
}
