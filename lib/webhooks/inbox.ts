/**
 * The webhook inbox (docs/contract.md, "Webhooks"): Stripe delivers each event at least
 * once, so the event id is the key and a redelivery changes nothing. An event
 * is processed under a lease: claiming it pushes `next_attempt_at` to the end
 * of the lease, so another worker skips it while it runs, and a worker that
 * dies leaves it due again once the lease runs out — nothing holds a
 * transaction (or a connection) across the Stripe calls processing makes.
 *
 * Raw SQL where Prisma cannot say it: `insert … on conflict do nothing`
 * returning whether this delivery inserted, `for update skip locked`, and
 * times by the database's clock (instances' clocks may disagree).
 */
import type { PrismaClient } from "../generated/prisma/client";

export interface InboxEvent {
  id: string;
  type: string;
  paymentIntentId: string | null;
  payload: unknown;
  /** Including the claim that returned it. */
  attempts: number;
  /** Milliseconds since the first delivery, by the database's clock. */
  ageMs: number;
}

/**
 * Stores a verified event: "inserted", "duplicate" when its id was already
 * there (a redelivery), or "unstorable" when PostgreSQL's jsonb cannot hold
 * the payload (a `\u0000`, an unpaired surrogate: valid JSON, yet no jsonb
 * value). Redelivering such an event would fail the same way for days, so it
 * is reported, not thrown.
 */
export async function storeEvent(
  prisma: PrismaClient,
  event: { id: string; type: string; paymentIntentId: string | null; payload: string },
): Promise<"inserted" | "duplicate" | "unstorable"> {
  try {
    const inserted = await prisma.$executeRaw`
      insert into webhook_events (id, type, payment_intent_id, payload)
      values (${event.id}, ${event.type}, ${event.paymentIntentId}, ${event.payload}::jsonb)
      on conflict (id) do nothing`;
    return inserted === 1 ? "inserted" : "duplicate";
  } catch (err) {
    if (UNSTORABLE_JSON.has(postgresCode(err) ?? "")) return "unstorable";
    throw err;
  }
}

/**
 * 22P05: `\u0000` cannot be converted to text; 22P02: invalid input syntax for
 * type json, which for a payload Stripe's SDK already parsed means an escape
 * jsonb refuses (an unpaired surrogate).
 */
const UNSTORABLE_JSON = new Set(["22P05", "22P02"]);

/** The SQLSTATE under Prisma's driver-adapter error, if any. */
function postgresCode(err: unknown): string | undefined {
  const meta = (err as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } }).meta;
  const code = meta?.driverAdapterError?.cause?.originalCode;
  return typeof code === "string" ? code : undefined;
}

/**
 * Claims up to `limit` unprocessed events that are due (or just the one with
 * `eventId`), each for `leaseMs`. Several instances claiming at once share the
 * work: rows another claim holds locked are skipped, not waited for.
 */
export async function claimDueEvents(
  prisma: PrismaClient,
  options: { leaseMs: number; limit: number; eventId?: string },
): Promise<InboxEvent[]> {
  const only = options.eventId ?? null;
  return prisma.$queryRaw<InboxEvent[]>`
    update webhook_events e
       set attempts = e.attempts + 1,
           next_attempt_at = now() + ${options.leaseMs} * interval '1 millisecond'
     where e.id in (
       select id from webhook_events
        where processed_at is null and next_attempt_at <= now()
          and (${only}::text is null or id = ${only}::text)
        order by next_attempt_at
        limit ${options.limit}
        for update skip locked)
    returning e.id, e.type, e.payment_intent_id as "paymentIntentId", e.payload, e.attempts,
              (extract(epoch from (now() - e.received_at)) * 1000)::float8 as "ageMs"`;
}

/** Done with the event for good: it is never claimed again. */
export async function markProcessed(prisma: PrismaClient, eventId: string, outcome: string): Promise<void> {
  await prisma.webhookEvent.updateMany({
    where: { id: eventId, processedAt: null },
    data: { processedAt: new Date(), outcome, lastError: null },
  });
}

/** Not done yet: due again in `delayMs` (by the database's clock), with why. */
export async function retryLater(
  prisma: PrismaClient,
  eventId: string,
  delayMs: number,
  reason: string,
): Promise<void> {
  await prisma.$executeRaw`
    update webhook_events
       set next_attempt_at = now() + ${delayMs} * interval '1 millisecond', last_error = ${reason.slice(0, 1000)}
     where id = ${eventId} and processed_at is null`;
}

/**
 * Backoff between attempts: 1 s, 2 s, 4 s … capped at 30 minutes. Short at
 * first because the usual reason to wait is a live owner finishing within
 * seconds; capped so an event for an order that never appears costs at most
 * a few Stripe reads an hour until it expires.
 */
export function backoffMs(attempts: number): number {
  return Math.min(1_000 * 2 ** Math.max(0, attempts - 1), 30 * 60_000);
}

/**
 * The inbox remembers an event id for `WEBHOOK_RETENTION_DAYS` after it was
 * processed: far beyond Stripe's three days of redelivery and the 30 days in
 * which an event can still be resent from the Dashboard. Older processed rows
 * go in bounded batches (skip locked, like the key cleanup); unprocessed ones
 * stay until they are processed or expire.
 */
export const WEBHOOK_RETENTION_DAYS = 35;

export async function deleteProcessedEvents(
  prisma: PrismaClient,
  options: { batchSize?: number; maxBatches?: number } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  let deleted = 0;
  for (let batch = 0; batch < (options.maxBatches ?? 10); batch++) {
    const count = await prisma.$executeRaw`
      delete from webhook_events
       where id in (select id from webhook_events
                     where processed_at < now() - ${WEBHOOK_RETENTION_DAYS} * interval '1 day'
                     limit ${batchSize}
                     for update skip locked)`;
    deleted += count;
    if (count < batchSize) break;
  }
  return deleted;
}
