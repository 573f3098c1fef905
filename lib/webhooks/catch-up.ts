import type Stripe from "stripe";
import type { PrismaClient } from "../generated/prisma/client";
import type { WebhookDeps } from "./deps";
import { storeEvent } from "./inbox";
import { accountForSucceeded } from "./lost-order";
import { HANDLED_EVENT_TYPES } from "./process";
import { paymentIntentOf } from "./receive";

/**
 * The events catch-up: nothing depends on a webhook arriving. `stripe listen`
 * never redelivers, a Dashboard endpoint retries only a few times over hours,
 * and a shop may have no endpoint at all. So the maintenance loop also reads
 * Stripe's event list (`GET /v1/events`, the types the shop handles) into
 * the same inbox as the webhooks: by event id, so an event delivered and also
 * read back is processed once.
 *
 * A pass reads to the end of its window, however many events wait. The
 * stored resume point is the newest event stored (its id and creation time):
 * from it the pass pages towards the present with `ending_before`, as
 * stripe-node pages a list whose first request has `ending_before` (each page
 * newest first, the next page anchored on its first item), storing each page
 * oldest first and moving the resume point after each. A pass cut short (a
 * crash, a refusal, a restart) resumes from the last page it stored. With no
 * resume point yet (a new shop), or one Stripe no longer lists (events are
 * kept 30 days), the window is anchored on the newest event before it. Then
 * the last `CATCH_UP_OVERLAP_SECONDS` before the resume point are read again,
 * newest first: an event listed late is not skipped. Several instances may
 * run it at once: the inbox ignores duplicates and the resume point only
 * moves forward. Each page's successes are audited against the shop's
 * orders: one the shop lost (a failover to an asynchronous replica) is
 * restored from the provider's record (lost-order.ts), however long ago its
 * event was processed.
 */
/** Each pass reads this far behind its resume point again: events of one second, or listed late, are not skipped. */
export const CATCH_UP_OVERLAP_SECONDS = 300;
/** With no resume point yet (a new shop), the first pass reads this far back. */
export const CATCH_UP_FIRST_LOOKBACK_SECONDS = 24 * 3600;
/** Stripe's largest page. */
const PAGE = 100;

const CURSOR = "events";

export interface CatchUpResult {
  /** Events listed by Stripe in this pass. */
  seen: number;
  /** Of those, events the inbox did not hold yet. */
  stored: number;
  /** Succeeded intents of this shop listed that no order accounted for, restored or refunded. */
  restored: number;
}

interface Cursor {
  createdSeconds: number;
  eventId: string | null;
}

export async function catchUpEvents(deps: WebhookDeps, now = Date.now()): Promise<CatchUpResult> {
  const result: CatchUpResult = { seen: 0, stored: 0, restored: 0 };
  const stored = await readCursor(deps.prisma);
  const start = stored ?? { createdSeconds: Math.floor(now / 1000) - CATCH_UP_FIRST_LOOKBACK_SECONDS, eventId: null };
  let cursor = stored?.eventId ? await readForward(deps, stored.eventId, start, result) : null;
  if (!cursor) {
    const anchor = await anchorBefore(deps, start);
    // Nothing older than the window (a new account): the window is read whole, newest first, overlap included.
    if (!anchor) return finish(deps, await readWindow(deps, start, result), result);
    cursor = (await readForward(deps, anchor, start, result)) ?? start;
  }
  // The overlap: what was listed late behind the resume point.
  const overlap = { gte: cursor.createdSeconds - CATCH_UP_OVERLAP_SECONDS, lte: cursor.createdSeconds };
  await readPages(deps, { created: overlap }, result);
  return finish(deps, cursor, result);
}

function finish(deps: WebhookDeps, cursor: Cursor, result: CatchUpResult): CatchUpResult {
  if (result.stored > 0 || result.restored > 0)
    deps.log?.("events_catch_up", { ...result, cursor: cursor.createdSeconds });
  return result;
}

/** The newest handled event created before the window, to page forward from. */
async function anchorBefore(deps: WebhookDeps, from: Cursor): Promise<string | null> {
  const before = await deps.stripe.events.list({
    types: HANDLED_EVENT_TYPES,
    created: { lt: from.createdSeconds - CATCH_UP_OVERLAP_SECONDS },
    limit: 1,
  });
  return before.data[0]?.id ?? null;
}

/**
 * Pages from the anchor to the present, oldest page first, moving the resume
 * point after each page; null when Stripe no longer lists the anchor.
 */
async function readForward(
  deps: WebhookDeps,
  anchor: string,
  from: Cursor,
  result: CatchUpResult,
): Promise<Cursor | null> {
  let cursor = from;
  for (let endingBefore = anchor; ;) {
    let page: Stripe.ApiList<Stripe.Event>;
    try {
      page = await deps.stripe.events.list({ types: HANDLED_EVENT_TYPES, ending_before: endingBefore, limit: PAGE });
    } catch (err) {
      if (endingBefore === anchor && (err as { code?: string }).code === "resource_missing") return null;
      throw err;
    }
    const newest = page.data[0];
    if (!newest) return cursor;
    await storePage(deps, [...page.data].reverse(), result);
    cursor = await advanceCursor(deps.prisma, { createdSeconds: newest.created, eventId: newest.id });
    if (!page.has_more) return cursor;
    endingBefore = newest.id;
  }
}

/** The whole window newest first (a new account with nothing before it); the resume point is set at the end. */
async function readWindow(deps: WebhookDeps, from: Cursor, result: CatchUpResult): Promise<Cursor> {
  const newest = await readPages(deps, { created: { gte: from.createdSeconds - CATCH_UP_OVERLAP_SECONDS } }, result);
  return newest ? advanceCursor(deps.prisma, { createdSeconds: newest.created, eventId: newest.id }) : from;
}

/** Every page of a newest-first listing, each stored as it comes; the newest event listed, if any. */
async function readPages(
  deps: WebhookDeps,
  filter: { created: Stripe.RangeQueryParam },
  result: CatchUpResult,
): Promise<Stripe.Event | null> {
  let newest: Stripe.Event | null = null;
  let startingAfter: string | undefined;
  for (;;) {
    const page = await deps.stripe.events.list({
      types: HANDLED_EVENT_TYPES,
      ...filter,
      limit: PAGE,
      ...(startingAfter ? { starting_after: startingAfter } : {}),
    });
    newest ??= page.data[0] ?? null;
    await storePage(deps, page.data, result);
    const last = page.data.at(-1);
    if (!page.has_more || !last) return newest;
    startingAfter = last.id;
  }
}

/** Stores one page in the inbox, then audits its successes against the shop's orders. */
async function storePage(deps: WebhookDeps, events: readonly Stripe.Event[], result: CatchUpResult): Promise<void> {
  const succeeded: Stripe.PaymentIntent[] = [];
  for (const event of events) {
    result.seen += 1;
    const inserted = await storeEvent(deps.prisma, {
      id: event.id,
      type: event.type,
      paymentIntentId: paymentIntentOf(event),
      payload: JSON.stringify(event),
    });
    if (inserted === "inserted") result.stored += 1;
    if (event.type === "payment_intent.succeeded") succeeded.push(event.data.object as Stripe.PaymentIntent);
  }
  // Delivered or not, processed long ago or not: a success the shop has no order for is a lost order.
  const audit = await accountForSucceeded(deps, succeeded);
  result.restored += audit.order_restored + audit.order_restored_refunded + audit.unaccounted_refunded;
}

async function readCursor(prisma: PrismaClient): Promise<Cursor | null> {
  const row = await prisma.providerCursor.findUnique({
    where: { name: CURSOR },
    select: { createdSeconds: true, eventId: true },
  });
  return row ? { createdSeconds: Number(row.createdSeconds), eventId: row.eventId } : null;
}

/** Forward only: of several instances, the one that read furthest wins; answers the resume point now stored. */
async function advanceCursor(prisma: PrismaClient, to: Cursor): Promise<Cursor> {
  // Raw SQL: Prisma's upsert cannot say "only forward" in the one statement.
  const [row] = await prisma.$queryRaw<Array<{ created_seconds: bigint; event_id: string | null }>>`
    insert into provider_cursors (name, created_seconds, event_id) values (${CURSOR}, ${to.createdSeconds}, ${to.eventId})
    on conflict (name) do update
      set created_seconds = greatest(provider_cursors.created_seconds, excluded.created_seconds),
          event_id = case when excluded.created_seconds >= provider_cursors.created_seconds
                          then excluded.event_id else provider_cursors.event_id end,
          updated_at = now()
    returning created_seconds, event_id`;
  return row ? { createdSeconds: Number(row.created_seconds), eventId: row.event_id } : to;
}
