import type { AttemptLog } from "@/tools/chaos/journal";
import type { Evidence, LedgerIntent } from "./evidence";

/**
 * The invariants (docs/reliability.md), judged from the evidence alone: the
 * provider's ledger (what was charged and refunded), the database (what the
 * shop recorded) and the answers shoppers saw. Pure, so its own test can feed
 * it fabricated evidence of every kind of failure.
 */
export const INVARIANTS = {
  one_charge_per_attempt: "1 at most one successful charge per attempt",
  charge_has_one_paid_order: "2 every charge belongs to one paid order, or was refunded with a reason",
  shopper_saw_the_truth: "3 every 201 seen matches a charge; no decline seen for a charge that stands",
  nothing_left_in_progress: "4 no attempt in_progress or unowned after convergence",
  webhook_events_once: "5 every webhook event processed exactly once",
  no_paid_order_without_charge: "6 no order paid without a charge",
  one_payment_per_checkout: "7 at most one succeeded or processing payment per checkout",
  refunds_within_charge: "8 refunds never give back more than was charged",
  one_refund_per_refund_attempt: "9 each operator refund attempt made at most one Stripe refund",
} as const;

export type Invariant = keyof typeof INVARIANTS;

export interface Violation {
  invariant: Invariant;
  /** The attempt (Idempotency-Key), or the object, the evidence is about. */
  subject: string;
  evidence: string;
}

export interface Verdict {
  violations: Violation[];
  counts: Record<Invariant, number>;
  /** Invariants the evidence could not judge (e.g. no webhooks yet), with why. */
  notApplicable: Partial<Record<Invariant, string>>;
  /** How much evidence was judged. */
  judged: {
    attempts: number;
    answers: number;
    intents: number;
    charges: number;
    refunds: number;
    orders: number;
    events: number | null;
  };
}

export function check(evidence: Evidence): Verdict {
  const { intents, orders, keys, attempts } = evidence;

  const refunded = new Map<string, { amount: number; reasons: string[] }>();
  for (const refund of evidence.refunds) {
    if (!refund.payment_intent || refund.status === "failed" || refund.status === "canceled") continue;
    // An operator's refund gives back part of a charge that stood: judged by 7 and 8, not as the checkout's undoing.
    if (refund.metadata.attempt_key) continue;
    const entry = refunded.get(refund.payment_intent) ?? { amount: 0, reasons: [] };
    entry.amount += refund.amount;
    const reason = refund.reason ?? refund.metadata.reason ?? "";
    if (reason) entry.reasons.push(reason);
    refunded.set(refund.payment_intent, entry);
  }
  for (const order of orders) {
    if (order.paymentIntentId && order.refundReason)
      refunded.get(order.paymentIntentId)?.reasons.push(`order: ${order.refundReason}`);
  }
  const fullyRefunded = (pi: LedgerIntent) => (refunded.get(pi.id)?.amount ?? 0) >= pi.amount;
  const succeeded = intents.filter((pi) => pi.status === "succeeded");
  const standing = (pi: LedgerIntent) => pi.status === "succeeded" && !fullyRefunded(pi);
  const intentById = new Map(intents.map((pi) => [pi.id, pi]));
  const ordersByIntent = groupBy(
    orders.filter((o) => o.paymentIntentId),
    (o) => o.paymentIntentId!,
  );
  const orderById = new Map(orders.map((o) => [o.id, o]));
  const attemptOf = linkIntentsToAttempts(intents, orderById, attempts);

  const violations: Violation[] = [];
  const add = (invariant: Invariant, subject: string, text: string) =>
    violations.push({ invariant, subject, evidence: text });

  // 1. At most one successful charge per attempt.
  const chargesPerAttempt = groupBy(
    succeeded.filter((pi) => attemptOf.has(pi.id)),
    (pi) => attemptOf.get(pi.id)!,
  );
  for (const [attempt, charges] of chargesPerAttempt) {
    if (charges.length > 1)
      add(
        "one_charge_per_attempt",
        attempt,
        `${charges.length} succeeded PaymentIntents: ${charges.map((c) => `${c.id} (${c.amount})`).join(", ")}`,
      );
  }

  // 2. Every successful charge belongs to exactly one paid order, or was refunded with a recorded reason.
  for (const pi of succeeded) {
    const owners = ordersByIntent.get(pi.id) ?? [];
    const paid = owners.filter((o) => o.status === "paid");
    if (fullyRefunded(pi)) {
      if ((refunded.get(pi.id)?.reasons.length ?? 0) === 0)
        add("charge_has_one_paid_order", attemptOf.get(pi.id) ?? pi.id, `${pi.id} refunded without a recorded reason`);
      continue;
    }
    if (paid.length !== 1) {
      const seen = owners.map((o) => `${o.id}=${o.status}`).join(", ") || "no order";
      add(
        "charge_has_one_paid_order",
        attemptOf.get(pi.id) ?? pi.id,
        `${pi.id} succeeded (${pi.amount}) but has ${paid.length} paid orders (${seen})`,
      );
    } else if (paid[0]!.amountCents !== pi.amount) {
      add(
        "charge_has_one_paid_order",
        attemptOf.get(pi.id) ?? pi.id,
        `${pi.id} charged ${pi.amount} for order ${paid[0]!.id} of ${paid[0]!.amountCents}`,
      );
    }
  }

  // 3. Every 201 a shopper saw matches a successful charge; no decline seen for a charge that stands.
  for (const attempt of attempts) {
    const charges = chargesPerAttempt.get(attempt.id) ?? [];
    for (const seen of shownOutcomes(attempt)) {
      if (seen.kind === "paid") {
        const pi = seen.paymentIntentId ? intentById.get(seen.paymentIntentId) : undefined;
        if (!pi || !standing(pi))
          add(
            "shopper_saw_the_truth",
            attempt.id,
            `shown ${seen.how} paid with ${seen.paymentIntentId ?? "no PaymentIntent"}, which is ${pi ? (fullyRefunded(pi) ? "refunded" : pi.status) : "not in the ledger"}`,
          );
        else if (attemptOf.get(pi.id) !== attempt.id)
          add(
            "shopper_saw_the_truth",
            attempt.id,
            `shown ${seen.how} paid with ${pi.id}, which belongs to attempt ${attemptOf.get(pi.id) ?? "none"}`,
          );
        else if (seen.amountCents !== undefined && seen.amountCents !== pi.amount)
          add("shopper_saw_the_truth", attempt.id, `shown ${seen.amountCents} paid, ${pi.id} charged ${pi.amount}`);
      } else {
        const stands = charges.filter(standing);
        if (stands.length > 0)
          add(
            "shopper_saw_the_truth",
            attempt.id,
            `shown ${seen.how} ${seen.code} but ${stands.map((c) => c.id).join(", ")} succeeded and stands`,
          );
      }
    }
  }

  // 4. No attempt left in_progress (owned or released) and no order left pending after convergence.
  for (const key of keys) {
    if (key.status === "in_progress")
      add(
        "nothing_left_in_progress",
        key.key,
        `idempotency record still in_progress (${key.lockToken ? "owned" : "unowned"})`,
      );
  }
  for (const order of orders) {
    if (order.status === "pending")
      add(
        "nothing_left_in_progress",
        order.attemptKey ?? order.id,
        `order ${order.id} still pending${order.paymentIntentId ? ` with ${order.paymentIntentId}` : ""}`,
      );
  }

  // 5. Every webhook event processed exactly once.
  const notApplicable: Verdict["notApplicable"] = {};
  if (evidence.events === null || evidence.inbox === null) {
    notApplicable.webhook_events_once =
      evidence.events === null ? "the provider has no event log" : "the app has no webhook inbox";
  } else {
    const inbox = new Map(evidence.inbox.map((e) => [e.eventId, e]));
    for (const event of evidence.events) {
      const row = inbox.get(event.id);
      if (!row) add("webhook_events_once", event.id, `${event.type} never stored by the app`);
      else if (!row.processed || row.processedCount !== 1)
        add("webhook_events_once", event.id, `${event.type} processed ${row.processed ? row.processedCount : 0} times`);
    }
  }

  // 6. No order paid without a charge.
  for (const order of orders) {
    if (order.status !== "paid") continue;
    const pi = order.paymentIntentId ? intentById.get(order.paymentIntentId) : undefined;
    if (!pi || !standing(pi))
      add(
        "no_paid_order_without_charge",
        order.attemptKey ?? order.id,
        `order ${order.id} paid, its PaymentIntent ${order.paymentIntentId ?? "(none)"} is ${pi ? (fullyRefunded(pi) ? "refunded" : pi.status) : "not in the ledger"}`,
      );
    else if (pi.amount !== order.amountCents)
      add(
        "no_paid_order_without_charge",
        order.attemptKey ?? order.id,
        `order ${order.id} of ${order.amountCents} paid by ${pi.id} of ${pi.amount}`,
      );
  }

  // 7. At most one succeeded (and standing) or processing payment per checkout, whichever attempt made it.
  const checkoutOf = (pi: LedgerIntent) => {
    const order =
      (pi.metadata.orderId ? orderById.get(pi.metadata.orderId) : undefined) ?? ordersByIntent.get(pi.id)?.[0];
    return order?.checkoutId ?? null;
  };
  if (!orders.some((o) => o.checkoutId !== undefined) && orders.length > 0) {
    notApplicable.one_payment_per_checkout = "the app's orders name no checkout";
  } else {
    const live = intents.filter((pi) => standing(pi) || pi.status === "processing");
    const perCheckout = groupBy(
      live.filter((pi) => checkoutOf(pi) !== null),
      (pi) => checkoutOf(pi)!,
    );
    for (const [checkout, payments] of perCheckout) {
      if (payments.length > 1)
        add(
          "one_payment_per_checkout",
          checkout,
          `${payments.length} live payments: ${payments.map((pi) => `${pi.id} (${pi.status}, ${attemptOf.get(pi.id) ?? "no attempt"})`).join(", ")}`,
        );
    }
  }

  // 8. Refunds (pending or succeeded, anyone's) never add up to more than the charge.
  const givenBack = new Map<string, number>();
  for (const refund of evidence.refunds) {
    if (!refund.payment_intent || refund.status === "failed" || refund.status === "canceled") continue;
    givenBack.set(refund.payment_intent, (givenBack.get(refund.payment_intent) ?? 0) + refund.amount);
  }
  for (const [paymentIntent, amount] of givenBack) {
    const pi = intentById.get(paymentIntent);
    const charged = pi?.status === "succeeded" ? pi.amount : 0;
    if (amount > charged)
      add(
        "refunds_within_charge",
        paymentIntent,
        `refunds of ${paymentIntent} add up to ${amount}, ${pi ? `it charged ${charged} (${pi.status})` : "it is not in the ledger"}`,
      );
  }

  // 9. One Stripe refund per operator refund attempt (the key in its metadata), whatever became of it.
  const perAttempt = groupBy(
    evidence.refunds.filter((r) => r.metadata.attempt_key),
    (r) => r.metadata.attempt_key!,
  );
  for (const [key, made] of perAttempt)
    if (made.length > 1)
      add(
        "one_refund_per_refund_attempt",
        key,
        `${made.length} Stripe refunds: ${made.map((r) => `${r.id} (${r.amount}, ${r.status})`).join(", ")}`,
      );

  const counts = Object.fromEntries(Object.keys(INVARIANTS).map((k) => [k, 0])) as Record<Invariant, number>;
  for (const v of violations) counts[v.invariant] += 1;
  const judged = {
    attempts: attempts.length,
    answers: attempts.reduce((n, a) => n + a.answers.length, 0),
    intents: intents.length,
    charges: succeeded.length,
    refunds: evidence.refunds.length,
    orders: orders.length,
    events: evidence.events?.length ?? null,
  };
  return { violations, counts, notApplicable, judged };
}

/**
 * Which attempt each PaymentIntent was made for: the key in its metadata,
 * else the attempt of the order in its metadata, else the attempt whose
 * shopper was shown it (a build that tags nothing is still judged).
 */
function linkIntentsToAttempts(
  intents: LedgerIntent[],
  orders: Map<string, { attemptKey: string | null }>,
  attempts: AttemptLog[],
): Map<string, string> {
  const shownIn = new Map<string, string>();
  for (const attempt of attempts) {
    for (const seen of shownOutcomes(attempt)) if (seen.paymentIntentId) shownIn.set(seen.paymentIntentId, attempt.id);
  }
  const links = new Map<string, string>();
  for (const pi of intents) {
    const byOrder = pi.metadata.orderId ? orders.get(pi.metadata.orderId)?.attemptKey : undefined;
    const attempt = pi.metadata.idempotencyKey ?? byOrder ?? shownIn.get(pi.id);
    if (attempt) links.set(pi.id, attempt.toLowerCase());
  }
  return links;
}

export interface ShownOutcome {
  kind: "paid" | "declined";
  /** Which answer said so. */
  how: string;
  paymentIntentId?: string;
  amountCents?: number;
  code?: string;
}

/** The outcomes an attempt's shopper was told: a 201 or 402 to the POST, or the same in the attempt's stored state. */
export function shownOutcomes(attempt: AttemptLog): ShownOutcome[] {
  const shown: ShownOutcome[] = [];
  for (const answer of attempt.answers) {
    const direct =
      answer.method === "POST" ? { status: answer.status, body: answer.body } : storedResponse(answer.body);
    if (!direct) continue;
    const how = `${answer.method} ${answer.path.split("?")[0]} → ${direct.status}`;
    const body = (direct.body ?? {}) as Record<string, unknown>;
    if (direct.status === 201) {
      shown.push({
        kind: "paid",
        how,
        ...(typeof body.paymentIntentId === "string" ? { paymentIntentId: body.paymentIntentId } : {}),
        ...(typeof body.amountCents === "number" ? { amountCents: body.amountCents } : {}),
      });
    } else if (direct.status === 402) {
      shown.push({ kind: "declined", how, code: typeof body.error === "string" ? body.error : "402" });
    }
  }
  return shown;
}

/** GET /api/checkout/{key}: `{ status, response: { statusCode, body } }`. */
function storedResponse(body: unknown): { status: number; body: unknown } | null {
  const response = (body as { response?: { statusCode?: unknown; body?: unknown } } | null)?.response;
  return typeof response?.statusCode === "number" ? { status: response.statusCode, body: response.body } : null;
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    groups.set(k, [...(groups.get(k) ?? []), item]);
  }
  return groups;
}
