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
 * Stripe's event list (`GET /v1/events`, the types the shop handles) from a
 * stored cursor, with an overlap, and stores what it finds in the same inbox
 * as the webhooks: by event id, so an event delivered and also read back is
 * processed once. Several instances may run it at once: the inbox ignores
 * duplicates and the cursor only moves forward. Each pass also audits the
 * successes it lists against the shop's orders: one the shop lost (a
 * failover to an asynchronous replica) is restored from the provider's
 * record (lost-order.ts), however long ago its event was processed.
 */
/** Each pass reads this far behind the cursor: events of one second, or listed late, are not skipped. */
export const CATCH_UP_OVERLAP_SECONDS = 300;
/** With no cursor yet (a new shop), the first pass reads this far back. */
export const CATCH_UP_FIRST_LOOKBACK_SECONDS = 24 * 3600;
/** A pass reads at most this many events; one that stops there leaves the cursor for the next. */
export const CATCH_UP_MAX_EVENTS = 1_000;

const CURSOR = "events";

export interface CatchUpResult {
  /** Events listed by Stripe in this pass. */
  seen: number;
  /** Of those, events the inbox did not hold yet. */
  stored: number;
  /** Succeeded intents of this shop listed that no order accounted for, restored or refunded. */
  restored: number;
}

export async function catchUpEvents(deps: WebhookDeps, now = Date.now()): Promise<CatchUpResult> {
  const cursor = (await readCursor(deps.prisma)) ?? Math.floor(now / 1000) - CATCH_UP_FIRST_LOOKBACK_SECONDS;
  const result: CatchUpResult = { seen: 0, stored: 0, restored: 0 };
  const succeeded: Stripe.PaymentIntent[] = [];
  let newest = cursor;
  let complete = true;
  const events = deps.stripe.events.list({
    types: HANDLED_EVENT_TYPES,
    created: { gte: cursor - CATCH_UP_OVERLAP_SECONDS },
    limit: 100,
  });
  for await (const event of events) {
    if (result.seen === CATCH_UP_MAX_EVENTS) {
      complete = false;
      break;
    }
    result.seen += 1;
    newest = Math.max(newest, event.created);
    const stored = await storeEvent(deps.prisma, {
      id: event.id,
      type: event.type,
      paymentIntentId: paymentIntentOf(event),
      payload: JSON.stringify(event),
    });
    if (stored === "inserted") result.stored += 1;
    if (event.type === "payment_intent.succeeded") succeeded.push(event.data.object as Stripe.PaymentIntent);
  }
  // Delivered or not, processed long ago or not: a success the shop has no order for is a lost order.
  const audit = await accountForSucceeded(deps, succeeded);
  result.restored = audit.order_restored + audit.order_restored_refunded + audit.unaccounted_refunded;
  // Newest first: a pass cut short has not read the older events yet, so the cursor waits.
  if (complete) await advanceCursor(deps.prisma, newest);
  if (result.stored > 0 || result.restored > 0) deps.log?.("events_catch_up", { ...result, cursor: newest });
  return result;
}

async function readCursor(prisma: PrismaClient): Promise<number | null> {
  const row = await prisma.providerCursor.findUnique({ where: { name: CURSOR }, select: { createdSeconds: true } });
  return row ? Number(row.createdSeconds) : null;
}

/** Forward only: of several instances, the one that read furthest wins. */
async function advanceCursor(prisma: PrismaClient, createdSeconds: number): Promise<void> {
  await prisma.$executeRaw`
    insert into provider_cursors (name, created_seconds) values (${CURSOR}, ${createdSeconds})
    on conflict (name) do update
      set created_seconds = greatest(provider_cursors.created_seconds, excluded.created_seconds), updated_at = now()`;
}
