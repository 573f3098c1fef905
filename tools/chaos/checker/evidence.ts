import type { AttemptLog } from "@/tools/chaos/journal";

/**
 * Everything the checker judges, gathered after convergence from three
 * independent sources: the provider's lists over HTTP, the app's tables, and
 * the shoppers' own journal. The ledger shapes are the fields it judges as
 * Stripe's API lists them: ids unexpanded, statuses plain strings, so that a
 * status nobody expected (a refund `canceled`) is judged rather than ruled out
 * by a type. They are not the emulator's or the SDK's types on purpose: the
 * witness should not share the code of what it checks.
 */
export interface LedgerIntent {
  id: string;
  status: string;
  amount: number;
  metadata: Record<string, string>;
}

export interface LedgerRefund {
  id: string;
  payment_intent: string | null;
  amount: number;
  status: string;
  reason: string | null;
  metadata: Record<string, string>;
}

export interface LedgerEvent {
  id: string;
  type: string;
}

export interface DbOrder {
  id: string;
  customerId: string;
  status: string;
  amountCents: number;
  paymentIntentId: string | null;
  /** The attempt's Idempotency-Key, while its record exists. */
  attemptKey: string | null;
  /** Why the app refunded this order's charge, if it did (e.g. late_success). */
  refundReason?: string | null;
  /** The checkout the order's attempt paid; undefined where the app has no checkouts. */
  checkoutId?: string | null;
}

export interface DbAttempt {
  key: string;
  subjectId: string;
  status: string;
  lockToken: string | null;
  responseStatus: number | null;
}

export interface DbInboxEvent {
  eventId: string;
  /** How many times the app ran its processing for this event (1 = exactly once). */
  processedCount: number;
  processed: boolean;
}

export interface Evidence {
  attempts: AttemptLog[];
  intents: LedgerIntent[];
  refunds: LedgerRefund[];
  /** null: the provider (emulator) has no event log yet. */
  events: LedgerEvent[] | null;
  orders: DbOrder[];
  keys: DbAttempt[];
  /** null: the app has no webhook inbox yet. */
  inbox: DbInboxEvent[] | null;
}
