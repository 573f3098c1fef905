import { randomUUID } from "node:crypto";
import { runAudit } from "@/lib/audit/audit";
import { shopIdentity } from "@/lib/checkout/intent-ownership";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { EmulatorClient } from "@checkout/stripe-emulator/client";
import { openDb } from "../lib/database";
import { goal, type Scenario } from "../lib/scenario";

/**
 * `npm run audit` over a busy day: `auditIntents` paid orders and their
 * succeeded PaymentIntents spread over the last 24 hours (recorded at past
 * times in an emulator account of its own, and inserted as the shop writes
 * them), audited end to end through the SDK and the database. Reported: the
 * time per intent; the goal is that a clean day has no finding.
 */
const KEY = "sk_test_bench_audit";
const SHOP = "bench-audit";
const DAY_MS = 86_400_000;
const BATCH = 2_000; // the emulator's history limit per request
const AMOUNT = 1_800;

export const audit: Scenario = {
  name: "audit",
  title: "audit of a day",
  async run(ctx) {
    const count = ctx.sizes.auditIntents;
    const emulator = new EmulatorClient(ctx.emulatorUrl, { apiKey: KEY });
    await emulator.reset();
    const db = openDb(ctx.databaseUrl);
    try {
      const customer = await db.prisma.customer.create({ data: {}, select: { id: true } });
      const now = Date.now();
      const loadStarted = performance.now();
      for (let done = 0; done < count; done += BATCH) {
        const size = Math.min(BATCH, count - done);
        const rows = Array.from({ length: size }, (_, i) => {
          const at = now - DAY_MS + 60_000 + Math.floor(((done + i) * (DAY_MS - 120_000)) / count);
          return { orderId: randomUUID(), at };
        });
        const { ids } = await emulator.history(
          rows.map((row) => ({
            amount: AMOUNT,
            currency: "usd",
            created: Math.floor(row.at / 1000),
            metadata: { shop: SHOP, orderId: row.orderId, customerId: customer.id, idempotencyKey: randomUUID() },
          })),
        );
        await db.pool.query(
          `insert into orders (id, customer_id, status, amount_cents, currency, payment_intent_id, created_at)
           select o.id, $1::uuid, 'paid', $2, 'usd', o.pi, o.at
             from unnest($3::uuid[], $4::text[], $5::timestamptz[]) as o(id, pi, at)`,
          [customer.id, AMOUNT, rows.map((r) => r.orderId), ids, rows.map((r) => new Date(r.at))],
        );
      }
      const loadSeconds = (performance.now() - loadStarted) / 1000;
      ctx.log(`audit: ${count.toLocaleString("en")} intents and orders recorded in ${loadSeconds.toFixed(1)} s`);

      const started = performance.now();
      const report = await runAudit(
        {
          prisma: db.prisma,
          stripe: createStripeClient({ secretKey: KEY, apiBase: ctx.emulatorUrl, maxNetworkRetries: 0 }),
          // The recorded intents name the shop without its MAC: the audit reads each as this shop's to account for.
          identity: shopIdentity(SHOP, []),
          attemptDeadlineMs: 1_800_000,
          actionTimeoutMs: 1_800_000,
        },
        { from: new Date(now - DAY_MS), to: new Date(now) },
      );
      const seconds = (performance.now() - started) / 1000;
      await db.pool.query("delete from orders where customer_id = $1::uuid", [customer.id]);
      await db.pool.query("delete from customers where id = $1::uuid", [customer.id]);
      const perIntentUs = (seconds * 1e6) / Math.max(1, report.intents);
      return {
        measures: {},
        figures: {
          intents: report.intents,
          findings: report.findings.length,
          "audit seconds": Math.round(seconds * 10) / 10,
          "µs per intent": Math.round(perIntentUs),
        },
        goals: [goal("findings on a clean day", report.findings.length, "<=", 0)],
        notes: [
          `audit of ${report.intents.toLocaleString("en")} intents in ${seconds.toFixed(1)} s: ${Math.round(perIntentUs)} µs per intent (${Math.ceil(report.intents / 100)} pages of 100)`,
        ],
      };
    } finally {
      await db.close();
    }
  },
};
