import pg from "pg";

/**
 * After the faults stop: wait, bounded, until the maintenance loop has
 * finished everything — no attempt in progress, no order pending, no webhook
 * delivery outstanding, no stored event unprocessed, and no charge that no
 * order accounts for and nobody refunded (lost rows the catch-up has not
 * restored yet) — and it stays that way for two looks in a row.
 */
export interface Convergence {
  converged: boolean;
  ms: number;
  /** What was still open at the last look. */
  open: {
    inProgress: number;
    pendingOrders: number;
    unprocessedEvents: number;
    webhooksPending: number;
    unaccountedCharges: number;
  };
}

export async function awaitConvergence(options: {
  databaseUrl: string;
  timeoutMs: number;
  /** Deliveries the provider still holds, waits to retry, or has in flight. */
  webhooksPending: () => Promise<number>;
  /** The provider's succeeded, unrefunded PaymentIntents, by id, with the attempt id their metadata names. */
  charges: () => Promise<Array<{ id: string; orderId: string | undefined }>>;
}): Promise<Convergence> {
  const { databaseUrl, timeoutMs } = options;
  const started = Date.now();
  let quietLooks = 0;
  let open = { inProgress: 0, pendingOrders: 0, unprocessedEvents: 0, webhooksPending: 0, unaccountedCharges: 0 };
  for (;;) {
    const webhooksPending = await options.webhooksPending().catch(() => -1);
    const charges = await options.charges().catch(() => null);
    open = {
      ...(await look(databaseUrl, charges).catch(() => ({
        inProgress: -1,
        pendingOrders: -1,
        unprocessedEvents: -1,
        unaccountedCharges: -1,
      }))),
      webhooksPending,
    };
    quietLooks = Object.values(open).every((n) => n === 0) ? quietLooks + 1 : 0;
    if (quietLooks >= 2) return { converged: true, ms: Date.now() - started - 1_000, open };
    if (Date.now() - started > timeoutMs) return { converged: false, ms: Date.now() - started, open };
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function look(databaseUrl: string, charges: Array<{ id: string; orderId: string | undefined }> | null) {
  const db = new pg.Client({ connectionString: databaseUrl });
  // A failover or restart cuts it: the query fails (and is looked at again), the process does not.
  db.on("error", () => undefined);
  await db.connect();
  try {
    const keys = await db.query<{ n: number }>(
      `select count(*)::int as n from idempotency_keys where status = 'in_progress'`,
    );
    const orders = await db.query<{ n: number }>(`select count(*)::int as n from orders where status = 'pending'`);
    const inbox = await db.query<{ name: string }>(
      `select table_name as name from information_schema.tables
        where table_schema = 'public' and table_name in ('webhook_events', 'webhook_inbox', 'stripe_events')`,
    );
    let unprocessedEvents = 0;
    if (inbox.rows[0]) {
      const rows = await db.query<{ n: number }>(
        `select count(*)::int as n from "${inbox.rows[0].name}" where processed_at is null`,
      );
      unprocessedEvents = rows.rows[0]!.n;
    }
    let unaccountedCharges = -1;
    if (charges) {
      const accounted = await db.query<{ id: string; payment_intent_id: string | null }>(
        `select id::text, payment_intent_id from orders where payment_intent_id = any($1::text[]) or id::text = any($2::text[])`,
        [charges.map((c) => c.id), charges.flatMap((c) => (c.orderId ? [c.orderId.toLowerCase()] : []))],
      );
      const ids = new Set(accounted.rows.flatMap((r) => [r.id, r.payment_intent_id]));
      unaccountedCharges = charges.filter((c) => !ids.has(c.id) && !ids.has(c.orderId?.toLowerCase() ?? "")).length;
    }
    return { inProgress: keys.rows[0]!.n, pendingOrders: orders.rows[0]!.n, unprocessedEvents, unaccountedCharges };
  } finally {
    await db.end();
  }
}
