import { shopIdentity } from "@/lib/checkout/intent-ownership";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { checkout } from "@/lib/checkout/checkout";
import type { Ownership } from "@checkout/idempotency";
import { naiveCheckout } from "@/lib/lab/server/naive-checkout";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { claim, keyRow, keyRows, openDb, rawInsert, resetKeys, type BenchDb } from "../lib/database";
import type { CpuMeters } from "../lib/cpu";
import { runConcurrent } from "../lib/measure";
import { goal, type BenchContext, type Scenario } from "../lib/scenario";
import { CART, checkoutHeaders, getFaults, setFaults, startSession } from "../lib/app-client";
import { sleep } from "@/lib/sleep";

/**
 * Round trips to PostgreSQL, one request at a time so nothing else is
 * counted. Over HTTP: what `POST /api/checkout` sends (session, admission,
 * claim, order, outcome, all of it), counted on the wire by the relay the
 * app's DATABASE_URL points at (lib/pg-relay.ts), for a fresh checkout, a
 * duplicate of a running attempt and a replay of a finished one, beside the
 * lab's naive route. In process: statements of the engine's claim and the
 * use case, counted on the bench's pool (BEGIN and COMMIT included).
 */
const N = 200;
const FLOWS = 20;

export const roundTrips: Scenario = {
  name: "round-trips",
  title: "round trips",
  async run(ctx) {
    const db = openDb(ctx.databaseUrl, { countStatements: true });
    try {
      await resetKeys(db);
      const rows = keyRows(N);
      const owners: Ownership[] = [];
      const sequential = { concurrency: 1, count: N };
      const commits = await commitCost(ctx.databaseUrl, sequential);
      const freshClaim = await perCall(db, ctx.cpu, N, async (i) => {
        const result = await claim(db, rows[i]!);
        if (result.kind !== "claimed") throw new Error(`expected a claim, got ${result.kind}`);
        owners.push(result.owner);
      });
      const inProgress = await perCall(db, ctx.cpu, N, async (i) =>
        expectKind(await claim(db, rows[i]!), "in_progress"),
      );
      const finish = await perCall(db, ctx.cpu, N, (i) =>
        db.engine.finish(owners[i]!, {
          status: "completed",
          response: { statusCode: 201, body: JSON.stringify({ ok: true }), headers: {} },
        }),
      );
      const replay = await perCall(db, ctx.cpu, N, async (i) => expectKind(await claim(db, rows[i]!), "replay"));

      const stripe = createStripeClient({ secretKey: "sk_test_emulator", apiBase: ctx.emulatorUrl });
      const deps = {
        prisma: db.prisma,
        stripe,
        idempotency: db.engine,
        appOrigin: "http://localhost:3000",
        actionTimeoutMs: 1_800_000,
        identity: shopIdentity("bench", ["bench-only-secret-not-a-real-one"]),
      };
      const body = { items: [{ sku: "tee-classic", quantity: 1 }], paymentMethod: "pm_card_visa" };
      const customerId = randomUUID();
      const keys = Array.from({ length: FLOWS }, () => randomUUID());
      const fresh = await perCall(db, ctx.cpu, FLOWS, (i) => checkout(deps, { customerId, key: keys[i]!, body }));
      const duplicate = await perCall(db, ctx.cpu, FLOWS, (i) => checkout(deps, { customerId, key: keys[i]!, body }));
      const naive = await perCall(db, ctx.cpu, FLOWS, () => naiveCheckout(deps, { customerId, body }));
      const http = await overHttp(ctx);
      // The checkout page pays with a ConfirmationToken: made beforehand, as Stripe.js makes it before Pay posts.
      const tokens = await Promise.all(
        Array.from({ length: FLOWS }, () =>
          stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" }),
        ),
      );
      const tokenKeys = Array.from({ length: FLOWS }, () => randomUUID());
      const withToken = await perCall(db, ctx.cpu, FLOWS, (i) =>
        checkout(deps, {
          customerId,
          key: tokenKeys[i]!,
          body: { items: body.items, confirmationToken: tokens[i]!.id },
        }),
      );

      return {
        measures: {
          "claim, one at a time": freshClaim.measure,
          "raw insert, one at a time": commits.synchronous,
          "raw insert, one at a time, no fsync wait": commits.asynchronous,
        },
        figures: {
          "statements per fresh claim": freshClaim.statements,
          "statements per duplicate claim (in progress)": inProgress.statements,
          "statements per duplicate claim (completed)": replay.statements,
          "statements per finish (fenced outcome)": finish.statements,
          "statements per fresh checkout (whole use case)": fresh.statements,
          "statements per fresh checkout with a ConfirmationToken": withToken.statements,
          "statements per duplicate checkout (whole use case)": duplicate.statements,
          "statements per naive checkout": naive.statements,
          "round trips per fresh POST /api/checkout (HTTP)": http.fresh,
          "round trips per duplicate POST /api/checkout, in progress (HTTP)": http.duplicate,
          "round trips per replayed POST /api/checkout (HTTP)": http.replay,
          "round trips per POST /api/lab/naive-checkout (HTTP)": http.naive,
        },
        goals: [
          goal("statements per fresh claim", freshClaim.statements, "<=", 1),
          goal("statements per duplicate claim", Math.max(inProgress.statements, replay.statements), "<=", 2),
          goal("statements per fresh checkout (whole use case)", fresh.statements, "<=", 3),
          goal("round trips per fresh POST /api/checkout over HTTP", http.fresh, "<=", 3),
          goal("round trips per duplicate POST /api/checkout over HTTP", http.duplicate, "<=", 1),
          goal("round trips per replayed POST /api/checkout over HTTP", http.replay, "<=", 1),
          goal("statements per fresh checkout with a ConfirmationToken", withToken.statements, "<=", 3),
        ],
        notes: [],
      };
    } finally {
      await db.close();
    }
  },
};

/**
 * Round trips of each kind of `POST /api/checkout`, sent one at a time by one
 * shopper with a session already made. The duplicates ask while the owner
 * is held in a 3 s provider call, after its order was written; the owner's
 * outcome is awaited before the replays are counted.
 */
async function overHttp(ctx: BenchContext) {
  const cookie = await startSession(ctx.appUrl);
  const post = async (path: string, key: string, expected: number) => {
    const response = await fetch(`${ctx.appUrl}${path}`, {
      method: "POST",
      headers: checkoutHeaders(cookie, key),
      body: CART,
    });
    await response.arrayBuffer();
    if (response.status !== expected) throw new Error(`${path} answered ${response.status}, not ${expected}`);
  };
  const counted = async (task: (i: number) => Promise<void>) => {
    const before = ctx.appRoundTrips();
    for (let i = 0; i < FLOWS; i++) await task(i);
    return (ctx.appRoundTrips() - before) / FLOWS;
  };
  // Warm the routes and the pool: a first request's connections cost their start-up messages.
  await post("/api/checkout", randomUUID(), 201);
  await post("/api/lab/naive-checkout", randomUUID(), 201);
  const keys = Array.from({ length: FLOWS }, () => randomUUID());
  const fresh = await counted((i) => post("/api/checkout", keys[i]!, 201));
  const replay = await counted((i) => post("/api/checkout", keys[i]!, 201));
  const naive = await counted(() => post("/api/lab/naive-checkout", randomUUID(), 201));

  const held = randomUUID();
  const before = await setFaults(ctx.emulatorUrl, { latencyMs: 3_000 });
  try {
    const owner = post("/api/checkout", held, 201);
    for (let waited = 0; (await getFaults(ctx.emulatorUrl)).stats.delayed <= before.stats.delayed; waited += 20) {
      if (waited > 10_000) throw new Error("Timed out waiting for the owner's charge to reach the emulator");
      await sleep(20);
    }
    const duplicate = await counted(() => post("/api/checkout", held, 409));
    await owner;
    return { fresh, duplicate, replay, naive };
  } finally {
    await setFaults(ctx.emulatorUrl, { latencyMs: 0 });
  }
}

async function perCall(db: BenchDb, cpu: CpuMeters, count: number, task: (i: number) => Promise<unknown>) {
  const before = db.statements();
  const measure = await runConcurrent({ concurrency: 1, count, cpu }, task);
  return { measure, statements: (db.statements() - before) / count };
}

/** Inserts one at a time, then the same without waiting for the WAL flush: the difference is the disk's fsync. */
async function commitCost(url: string, load: { concurrency: number; count: number }) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const synchronous = await runConcurrent(load, () => rawInsert(client, keyRow(0)));
    await client.query("set synchronous_commit = off");
    const asynchronous = await runConcurrent(load, () => rawInsert(client, keyRow(0)));
    return { synchronous, asynchronous };
  } finally {
    await client.end();
  }
}

function expectKind(result: { kind: string }, kind: string): void {
  if (result.kind !== kind) throw new Error(`expected ${kind}, got ${result.kind}`);
}
