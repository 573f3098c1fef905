import { unixSeconds } from "./ids";
import type { Ledger } from "./ledger";

/**
 * `POST /_emulator/history`: succeeded card payments recorded as if they had
 * happened at the given times, each with its succeeded charge, without events
 * (webhooks of the past were delivered in the past). A day of a busy shop for
 * an audit or a benchmark, in seconds rather than a day of checkouts.
 */
export interface HistoryIntent {
  amount: number;
  currency: string;
  /** Unix seconds, not in the future. */
  created: number;
  metadata?: Record<string, string>;
}

/** At most this many per request: the 1 MiB body limit holds them with their metadata. */
export const MAX_HISTORY_INTENTS = 2_000;

export function recordHistory(ledger: Ledger, input: unknown): { ids: string[] } | string {
  const intents = (input as { intents?: unknown } | null)?.intents;
  if (!Array.isArray(intents) || intents.length < 1 || intents.length > MAX_HISTORY_INTENTS)
    return `history takes { "intents": [{ "amount", "currency", "created", "metadata"? }] } with 1 to ${MAX_HISTORY_INTENTS} intents.`;
  const now = unixSeconds();
  const valid = intents.every(
    (item: Partial<HistoryIntent>) =>
      Number.isInteger(item.amount) &&
      item.amount! > 0 &&
      typeof item.currency === "string" &&
      /^[a-z]{3}$/.test(item.currency) &&
      Number.isInteger(item.created) &&
      item.created! <= now &&
      (item.metadata === undefined || isStringRecord(item.metadata)),
  );
  if (!valid)
    return "each history intent needs an integer amount above 0, a lowercase three-letter currency, an integer created (Unix seconds, not in the future) and string metadata.";
  const ids = (intents as HistoryIntent[]).map((item) => {
    const paymentMethod = ledger.paymentMethods.attach("pm_card_visa")!;
    const intent = ledger.create(
      {
        amount: item.amount,
        currency: item.currency,
        paymentMethod,
        metadata: { ...item.metadata },
        description: null,
        allowedTypes: ["card"],
      },
      item.created,
    );
    const charge = ledger.charges.record({
      amount: item.amount,
      currency: item.currency,
      paymentIntent: intent.id,
      paymentMethod,
      card: ledger.paymentMethods.card(paymentMethod),
      metadata: intent.metadata,
      failure: null,
      created: item.created,
    });
    Object.assign(intent, { status: "succeeded", latest_charge: charge.id, amount_received: item.amount });
    return intent.id;
  });
  return { ids };
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string")
  );
}
