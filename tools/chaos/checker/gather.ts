import pg from "pg";
import type { Journal } from "@/tools/chaos/journal";
import type { DbAttempt, DbInboxEvent, DbOrder, Evidence, LedgerEvent, LedgerIntent, LedgerRefund } from "./evidence";

/**
 * Reads the evidence after convergence: the provider's ledger over its own
 * HTTP API (as a finance team would reconcile against Stripe), the database
 * with plain SQL (the checker shares no code with the app it judges), and the
 * journal of answers shoppers saw.
 */
const AUTH = { authorization: "Bearer sk_test_emulator" };

export async function gatherEvidence(options: {
  emulatorUrl: string;
  databaseUrl: string;
  journal: Journal;
}): Promise<Evidence> {
  const [intents, refunds, events] = await Promise.all([
    listAll<LedgerIntent>(options.emulatorUrl, "/v1/payment_intents"),
    listAll<LedgerRefund>(options.emulatorUrl, "/v1/refunds").then((r) => r ?? []),
    listAll<LedgerEvent>(options.emulatorUrl, "/v1/events"),
  ]);
  const db = new pg.Client({ connectionString: options.databaseUrl });
  db.on("error", () => undefined);
  await db.connect();
  try {
    const refundColumn = await db.query(
      `select 1 from information_schema.columns where table_name = 'orders' and column_name = 'refund_reason'`,
    );
    const checkoutColumn = await db.query(
      `select 1 from information_schema.columns where table_name = 'orders' and column_name = 'checkout_id'`,
    );
    const orders = await db.query<DbOrder>(
      `select o.id, o.customer_id::text as "customerId", o.status::text as status, o.amount_cents as "amountCents",
              o.payment_intent_id as "paymentIntentId", k.key::text as "attemptKey",
              ${refundColumn.rowCount ? "o.refund_reason" : "null"} as "refundReason"
              ${checkoutColumn.rowCount ? `, coalesce(o.checkout_id, o.id)::text as "checkoutId"` : ""}
         from orders o left join idempotency_keys k on k.id = o.idempotency_key_id`,
    );
    const keys = await db.query<DbAttempt>(
      `select key::text as key, subject_id as "subjectId", status::text as status, lock_token::text as "lockToken",
              response_status as "responseStatus"
         from idempotency_keys`,
    );
    return {
      attempts: [...options.journal.attempts.values()],
      intents: intents ?? [],
      refunds,
      events,
      orders: orders.rows,
      keys: keys.rows,
      inbox: await readInbox(db),
    };
  } finally {
    await db.end();
  }
}

/** Succeeded PaymentIntents not refunded in full: charges some order must account for. */
export async function standingCharges(
  emulatorUrl: string,
  /** Which intents count (one shop's, when two share the account). */
  keep: (pi: LedgerIntent) => boolean = () => true,
): Promise<Array<{ id: string; orderId: string | undefined }>> {
  const [intents, refunds] = await Promise.all([
    listAll<LedgerIntent>(emulatorUrl, "/v1/payment_intents"),
    listAll<LedgerRefund>(emulatorUrl, "/v1/refunds"),
  ]);
  const refunded = new Map<string, number>();
  for (const r of refunds ?? []) {
    if (!r.payment_intent || r.status === "failed" || r.status === "canceled") continue;
    refunded.set(r.payment_intent, (refunded.get(r.payment_intent) ?? 0) + r.amount);
  }
  return (intents ?? [])
    .filter((pi) => keep(pi) && pi.status === "succeeded" && (refunded.get(pi.id) ?? 0) < pi.amount)
    .map((pi) => ({ id: pi.id, orderId: pi.metadata.orderId }));
}

/** Stripe's list shape, followed page by page; null when the provider has no such list (404). */
export async function listAll<T extends { id: string }>(baseUrl: string, path: string): Promise<T[] | null> {
  const all: T[] = [];
  let after = "";
  for (;;) {
    const response = await fetch(`${baseUrl}${path}?limit=100${after ? `&starting_after=${after}` : ""}`, {
      headers: AUTH,
    });
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
    const page = (await response.json()) as { data: T[]; has_more: boolean };
    all.push(...page.data);
    if (!page.has_more || page.data.length === 0) return all;
    after = page.data[page.data.length - 1]!.id;
  }
}

/** The webhook inbox, if the app has one (branch `webhooks`); null otherwise. */
async function readInbox(db: pg.Client): Promise<DbInboxEvent[] | null> {
  const table = await db.query<{ name: string }>(
    `select table_name as name from information_schema.tables
      where table_schema = 'public' and table_name in ('webhook_events', 'webhook_inbox', 'stripe_events')`,
  );
  const name = table.rows[0]?.name;
  if (!name) return null;
  // One row per event id (its primary key); processed_at is set once, by the
  // one processing that finished it (markProcessed only writes where it is null).
  const rows = await db.query<{ eventId: string; processed: boolean; processedCount: number }>(
    `select id as "eventId", processed_at is not null as processed, (processed_at is not null)::int as "processedCount" from "${name}"`,
  );
  return rows.rows;
}
