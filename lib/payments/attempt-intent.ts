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
 * characters (a 50-line cart of 64-character SKUs needs about 8).
 */
export function linesMetadata(lines: readonly MetadataLine[]): Record<string, string> {
  const sorted = [...lines].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : a.quantity - b.quantity));
  const json = JSON.stringify(sorted.map((l) => [l.sku, l.quantity, l.unitPriceCents]));
  const values: Record<string, string> = {};
  for (let i = 0; i * METADATA_VALUE_MAX < json.length; i++)
    values[`${LINES_PREFIX}${i + 1}`] = json.slice(i * METADATA_VALUE_MAX, (i + 1) * METADATA_VALUE_MAX);
  return values;
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
    create: `${attemptId}:create`,
    /** Per owner: Stripe replays a stored 500 forever for one key, and the intent's state already prevents a second charge. */
    confirm: (owner: number) => `${attemptId}:confirm:${owner}`,
    cancel: `${attemptId}:cancel`,
  };
}

/**
 * The attempt's intent, found by its metadata when its id is not known: the
 * create's answer was lost, replayed as a stored 500, or refused because the
 * parameters changed since. Search is eventually consistent (about a minute
 * at Stripe): an intent not found yet is looked for again, with backoff.
 */
export async function findAttemptIntent(stripe: Stripe, attemptId: string): Promise<Stripe.PaymentIntent | null> {
  const found = await stripe.paymentIntents.search({
    query: `metadata['orderId']:'${attemptId.replace(/'/g, "")}'`,
    limit: 10,
  });
  return found.data.find((i) => i.status === "succeeded") ?? found.data[0] ?? null;
}
