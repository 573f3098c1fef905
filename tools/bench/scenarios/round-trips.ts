import { shopIdentity } from "@/lib/checkout/intent-ownership";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { checkout } from "@/lib/checkout/checkout";
import type { Ownership } from "@/lib/idempotency/types";
import { naiveCheckout } from "@/lib/lab/server/naive-checkout";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { claim, keyRow, keyRows, openDb, rawInsert, resetKeys, type BenchDb } from "../lib/database";
import type { CpuMeters } from "../lib/cpu";
import { runConcurrent } from "../lib/measure";
import { goal, type Scenario } from "../lib/scenario";

/**
 * Statements each operation sends to PostgreSQL, counted on the bench's pool
 * (every query of every pooled connection, BEGIN and COMMIT included), one
 * request at a time so nothing else is counted. The goals are on the engine's
 * claim; the whole checkout (in-process, against the emulator) is shown
 * beside the naive flow to explain the fresh-checkout throughput.
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
          "statements per duplicate checkout (whole use case)": duplicate.statements,
          "statements per naive checkout": naive.statements,
        },
        goals: [
          goal("statements per fresh claim", freshClaim.statements, "<=", 1),
          goal("statements per duplicate claim", Math.max(inProgress.statements, replay.statements), "<=", 2),
          goal("statements per fresh checkout (whole use case)", fresh.statements, "<=", 3),
        ],
        notes: [],
      };
    } finally {
      await db.close();
    }
  },
};

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
