import type { PrismaClient } from "../generated/prisma/client";
import { queryRows } from "../db";
import type { AbuseLimits, LimitDecision } from "./limits";

/**
 * Whether a checkout request may start a new attempt. A key the customer
 * already has (a retry, a duplicate, a reload) is never limited: refusing it
 * would strand an attempt that may already have charged. A fresh key counts
 * against the address's and the session's limits, and is refused while the
 * customer already has `maxOpenAttempts` unfinished attempts.
 */
export interface CheckoutGateInput {
  customerId: string;
  endpoint: string;
  key: string;
  address: string;
  maxOpenAttempts: number;
}

/** How long a shopper with too many open attempts waits before asking again. */
export const OPEN_ATTEMPTS_RETRY_AFTER_SECONDS = 5;

export async function admitCheckout(
  deps: { prisma: PrismaClient; limits: AbuseLimits },
  input: CheckoutGateInput,
): Promise<LimitDecision | { ok: false; rule: "open_attempts"; retryAfterSeconds: number }> {
  const scope = `${input.customerId} ${input.endpoint} ${input.key}`;
  // A storm of duplicates reaches this process again and again: admitted once, never asked about again.
  if (admitted.has(scope)) return { ok: true };
  const decision = await decide(deps, input);
  if (decision.ok) remember(scope);
  return decision;
}

async function decide(
  deps: { prisma: PrismaClient; limits: AbuseLimits },
  input: CheckoutGateInput,
): Promise<LimitDecision | { ok: false; rule: "open_attempts"; retryAfterSeconds: number }> {
  // Raw SQL: one statement answers both questions, on the (subject_id, endpoint, key) index.
  const [row] = await queryRows<{ known: number; open: number }>(
    deps.prisma,
    `select count(*) filter (where key = $3::uuid)::int as known,
            count(*) filter (where status = 'in_progress')::int as open
       from idempotency_keys
      where subject_id = $1 and endpoint = $2`,
    [input.customerId, input.endpoint, input.key],
  );
  if (row && row.known > 0) return { ok: true };
  if (row && row.open >= input.maxOpenAttempts) {
    return { ok: false, rule: "open_attempts", retryAfterSeconds: OPEN_ATTEMPTS_RETRY_AFTER_SECONDS };
  }
  return deps.limits.consume([
    ["checkout_per_address", input.address],
    ["checkout_per_session", input.customerId],
  ]);
}

/**
 * Attempts this process admitted, so a duplicate costs no statement more
 * than before the limits (docs/decisions/0007-cheap-duplicates.md). Bounded,
 * oldest out first; forgetting one only means asking the database again.
 */
const admitted = new Set<string>();
const ADMITTED_MAX = 10_000;

function remember(scope: string): void {
  if (admitted.size >= ADMITTED_MAX) admitted.delete(admitted.values().next().value!);
  admitted.add(scope);
}
