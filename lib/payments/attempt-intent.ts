import { downstreamKey } from "@checkout/idempotency";
import type Stripe from "stripe";

/**
 * What ties a PaymentIntent to the checkout attempt that made it: the
 * attempt's id (its order's id, derived from the customer, the endpoint and
 * the client's key), which roots every downstream idempotency key and is
 * written into the intent's metadata, with what the order needs to be
 * restored from the provider's record should the shop lose its own rows:
 * the customer, the key and the lines (`lines_1`, `lines_2`, …). The amount
 * is the intent's own.
 */
export interface AttemptMetadata extends Record<string, string> {
  orderId: string;
  customerId: string;
  idempotencyKey: string;
}

/** One order line as the metadata carries it: the price is the one charged. */
export interface MetadataLine {
  sku: string;
  quantity: number;
  unitPriceCents: number;
}

/** Stripe's limit on one metadata value; a key holds at most 40 characters, an object at most 50 keys. */
const METADATA_VALUE_MAX = 500;
const LINES_PREFIX = "lines_";

/**
 * The lines as metadata values: a JSON array of `[sku, quantity, unit price]`,
 * sorted by SKU so that every owner of the attempt sends Stripe the same
 * parameters under the attempt's key, cut into values of at most 500
 * characters (chunks: a 50-line cart of 64-character SKUs needs about 8).
 */
export function linesMetadata(lines: readonly MetadataLine[]): Record<string, string> {
  const sorted = [...lines].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : a.quantity - b.quantity));
  const json = JSON.stringify(sorted.map((l) => [l.sku, l.quantity, l.unitPriceCents]));
  const values: Record<string, string> = {};
  chunks(json, METADATA_VALUE_MAX).forEach((chunk, i) => (values[`${LINES_PREFIX}${i + 1}`] = chunk));
  return values;
}

/**
 * `text` cut into pieces of at most `max` characters, never inside a code
 * point. Stripe's docs give the limit in "characters" without saying which;
 * a piece at most `max` UTF-16 units long is at most `max` code points too,
 * so it fits whichever Stripe counts, and a SKU outside the BMP (an emoji) is
 * never cut into two halves of a surrogate pair, which neither side could read.
 */
export function chunks(text: string, max: number): string[] {
  const pieces: string[] = [];
  let piece = "";
  for (const codePoint of text) {
    if (piece.length + codePoint.length > max) {
      pieces.push(piece);
      piece = "";
    }
    piece += codePoint;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

/** The lines an intent's metadata carries; null when they are missing or malformed. */
export function linesOf(metadata: Record<string, string>): MetadataLine[] | null {
  let json = "";
  for (let i = 1; metadata[`${LINES_PREFIX}${i}`] !== undefined; i++) json += metadata[`${LINES_PREFIX}${i}`];
  if (!json) return null;
  try {
    const parsed: unknown = JSON.parse(json);
    if (!Array.isArray(parsed) || parsed.length === 0) return null;
    const lines: MetadataLine[] = [];
    for (const entry of parsed) {
      if (!Array.isArray(entry) || entry.length !== 3) return null;
      const [sku, quantity, unitPriceCents] = entry as unknown[];
      if (typeof sku !== "string" || !Number.isInteger(quantity) || !Number.isInteger(unitPriceCents)) return null;
      if ((quantity as number) < 1 || (unitPriceCents as number) < 0) return null;
      lines.push({ sku, quantity: quantity as number, unitPriceCents: unitPriceCents as number });
    }
    return lines;
  } catch {
    return null;
  }
}

/** The downstream idempotency keys of one attempt: the same for every owner, retry and instance. */
export function paymentKeys(attemptId: string) {
  return {
    create: downstreamKey(attemptId, "create"),
    /** Per owner: Stripe replays a stored 500 forever for one key, and the intent's state already prevents a second charge. */
    confirm: (owner: number) => downstreamKey(attemptId, `confirm:${owner}`),
    cancel: downstreamKey(attemptId, "cancel"),
  };
}

/** How far before the attempt's order the list reaches: clocks disagree, the shop's and Stripe's. */
export const FIND_WINDOW_MARGIN_SECONDS = 600;

/**
 * The attempt's intent, found by its metadata when its id is not known: the
 * create's answer was lost, replayed as a stored 500, or refused because the
 * parameters changed since. The intents created since the attempt's order
 * was written are listed (a list is consistent: an intent Stripe created is
 * in it) and matched on `metadata.orderId`. Search is only the fallback, for
 * an intent older than the order (the shop lost its rows and wrote them
 * again): Stripe's docs advise against search right after a write (it lags
 * under a minute, up to an hour in an outage), it has its own rate limit and
 * some accounts have none. A failed search is no answer, not an error.
 * Only an intent `accepts` takes (this shop's, verified) is ever adopted.
 */
export async function findAttemptIntent(
  stripe: Stripe,
  attemptId: string,
  since: Date,
  accepts: (intent: Stripe.PaymentIntent) => boolean,
): Promise<Stripe.PaymentIntent | null> {
  const gte = Math.floor(since.getTime() / 1000) - FIND_WINDOW_MARGIN_SECONDS;
  const listed: Stripe.PaymentIntent[] = [];
  // Newest first, paged with starting_after by the SDK, to the window's start.
  for await (const intent of stripe.paymentIntents.list({ created: { gte }, limit: 100 }))
    if (intent.metadata?.orderId === attemptId && accepts(intent)) listed.push(intent);
  if (listed.length > 0) return pick(listed);
  try {
    const found = await stripe.paymentIntents.search({
      query: `metadata['orderId']:'${attemptId.replace(/'/g, "")}'`,
      limit: 10,
    });
    return pick(found.data.filter((intent) => intent.metadata?.orderId === attemptId && accepts(intent)));
  } catch {
    return null;
  }
}

/** Of one attempt's intents (one, unless something else wrote its id): the success, else the newest. */
function pick(intents: readonly Stripe.PaymentIntent[]): Stripe.PaymentIntent | null {
  return intents.find((i) => i.status === "succeeded") ?? intents[0] ?? null;
}
