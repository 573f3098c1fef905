import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { POOL_SIZE } from "@/lib/db";
import type { CpuMeters } from "../lib/cpu";
import { EMULATOR_WEBHOOK_SECRET } from "@/lib/env";
import { checkoutOnce, startSession } from "../lib/app-client";
import { openDb, type BenchDb } from "../lib/database";
import { Recorder, runConcurrent, type Measure } from "../lib/measure";
import { goal, type Scenario } from "../lib/scenario";

/**
 * Webhook events processed per second, end to end: signed
 * `payment_intent.succeeded` deliveries (distinct event ids, all about one
 * paid order — the common case) posted to `POST /api/webhooks/stripe` by
 * 2 × pool connections; each is verified, stored, acknowledged, then
 * processed right after the answer (a Stripe retrieve at the emulator, the
 * order's lookup, the inbox row marked done). The figure is events over the
 * time from the first delivery until the last event is processed. The floor,
 * in the same run: a raw `insert … on conflict do nothing` of the event id
 * into the same table through a pool of the app's size. Rounds alternate.
 */
const ROUNDS = 2;
const sdk = new Stripe("sk_test_signing_only");

export const webhooks: Scenario = {
  name: "webhooks",
  title: "webhook events processed vs raw insert of the event id",
  async run(ctx) {
    const db = openDb(ctx.databaseUrl);
    try {
      const intent = await paidIntent(ctx.appUrl, ctx.emulatorUrl);
      const perRound = Math.ceil(ctx.sizes.webhookEvents / ROUNDS);
      const concurrency = 2 * POOL_SIZE;
      const acks = new Recorder();
      const raw = new Recorder();
      let processed = 0;
      let processingSeconds = 0;
      // Warm-up: the route, the SDK and the statements are compiled and prepared once.
      await deliverAll(ctx.appUrl, db, intent, 50, concurrency, new Recorder());
      for (let round = 0; round < ROUNDS; round++) {
        const ids = eventIds(perRound);
        await runConcurrent({ concurrency, count: perRound, recorder: raw, cpu: ctx.cpu }, (i) =>
          db.pool.query(
            `insert into webhook_events (id, type, payload) values ($1, 'bench', '{}') on conflict do nothing`,
            [ids[i]],
          ),
        );
        const { seconds } = await deliverAll(ctx.appUrl, db, intent, perRound, concurrency, acks, ctx.cpu);
        processed += perRound;
        processingSeconds += seconds;
      }
      await db.pool.query("truncate webhook_events");
      const rawMeasure = raw.measure();
      const processedPerSecond = Math.round((processed / processingSeconds) * 10) / 10;
      return {
        measures: {
          "POST /api/webhooks/stripe (acknowledgement)": acks.measure(),
          "raw INSERT of the event id": rawMeasure,
        },
        figures: { "webhook events processed/s": processedPerSecond, "raw event-id inserts/s": rawMeasure.perSecond },
        // Not a target from the issue: a floor that catches a regression (a
        // lock held across the Stripe call would serialise processing).
        goals: [goal("processed events/s ÷ raw inserts/s", processedPerSecond / rawMeasure.perSecond, ">=", 0.05)],
        notes: [
          `${processed} events, each verified, stored, acknowledged and processed (retrieve + lookup + mark done)`,
        ],
      };
    } finally {
      await db.close();
    }
  },
};

/** One paid order through the app; its PaymentIntent as Stripe (the emulator) holds it. */
async function paidIntent(appUrl: string, emulatorUrl: string): Promise<Record<string, unknown>> {
  const cookie = await startSession(appUrl);
  const answer = await checkoutOnce(appUrl, cookie, crypto.randomUUID());
  const body = (await answer.json()) as { paymentIntentId?: string };
  if (answer.status !== 201 || !body.paymentIntentId) throw new Error(`checkout answered ${answer.status}`);
  const intent = await fetch(`${emulatorUrl}/v1/payment_intents/${body.paymentIntentId}`, {
    headers: { authorization: "Bearer sk_test_emulator" },
  });
  return (await intent.json()) as Record<string, unknown>;
}

function eventIds(count: number): string[] {
  return Array.from({ length: count }, () => `evt_${randomBytes(12).toString("hex")}`);
}

/** Delivers `count` new events and waits until the app has processed all of them. */
async function deliverAll(
  appUrl: string,
  db: BenchDb,
  intent: Record<string, unknown>,
  count: number,
  concurrency: number,
  recorder: Recorder,
  cpu?: CpuMeters,
): Promise<{ seconds: number; acks: Measure }> {
  const ids = eventIds(count);
  const started = performance.now();
  const acks = await runConcurrent({ concurrency, count, recorder, ...(cpu ? { cpu } : {}) }, async (i) => {
    const payload = JSON.stringify({
      id: ids[i],
      object: "event",
      api_version: "2026-10-28.endive",
      created: Math.floor(Date.now() / 1000),
      data: { object: intent },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type: "payment_intent.succeeded",
    });
    const signature = sdk.webhooks.generateTestHeaderString({ payload, secret: EMULATOR_WEBHOOK_SECRET });
    const response = await fetch(`${appUrl}/api/webhooks/stripe`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": signature },
      body: payload,
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`a delivery was answered ${response.status}`);
  });
  for (;;) {
    const { rows } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from webhook_events where id = any($1) and processed_at is not null`,
      [ids],
    );
    if (rows[0]!.n === count) break;
    if (performance.now() - started > 120_000)
      throw new Error(`only ${rows[0]!.n} of ${count} events processed after 2 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { seconds: (performance.now() - started) / 1000, acks };
}
