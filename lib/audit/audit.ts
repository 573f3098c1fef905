import type Stripe from "stripe";
import type { PrismaClient } from "../generated/prisma/client";
import { claimsThisShop, type ShopIdentity } from "../checkout/intent-ownership";
import { countByKind, dashboardUrl, type AuditReport, type AuditWindow, type Finding } from "./findings";
import {
  listIntents,
  listRefunds,
  withBackoff,
  type ReadOptions,
  type RecordIntent,
  type RecordRefund,
} from "./provider-record";
import { ordersOf, paidOrdersCreated, stuckAttempts, stuckEvents, type ShopOrder } from "./shop-record";

/**
 * The audit: the shop's database against Stripe's record of one window, as a
 * payments team reconciles its orders against the provider's ledger each day.
 * It reads the intents created in the window and the refunds since its start
 * (paged, this shop's only, by the project's one rule, claimsThisShop), the orders
 * and attempts of the window, and reports what disagrees. It reads, never
 * writes: repairing is the maintenance loop's job and the operator's.
 * Its cost is the window's: every read is bounded by creation time.
 */
export interface AuditDeps {
  prisma: PrismaClient;
  /** A client of the audit's own (see decision 0015): its reads never take from the shoppers' budget. */
  stripe: Stripe;
  /** Whose intents are this shop's (intent-ownership.ts). */
  identity: ShopIdentity;
  /** PAYMENT_ATTEMPT_DEADLINE_MS: an attempt older than this should be final. */
  attemptDeadlineMs: number;
  /** PAYMENT_ACTION_TIMEOUT_MS: an intent waiting for the shopper longer than this should be closed. */
  actionTimeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
  log?: (event: string, fields: Record<string, unknown>) => void;
  now?: () => number;
}

/** Unprocessed after this many tries (about half a minute of backoff), an inbox event is stuck, not just early. */
export const EVENT_STUCK_AFTER_ATTEMPTS = 5;

const OPEN_STATUSES: readonly string[] = ["requires_action", "requires_confirmation", "processing", "requires_capture"];

export async function runAudit(deps: AuditDeps, window: AuditWindow): Promise<AuditReport> {
  const now = deps.now?.() ?? Date.now();
  const read: ReadOptions = {
    sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    onRetry: (what, tries, err) =>
      deps.log?.("audit_backoff", { what, tries, error: err instanceof Error ? err.message : String(err) }),
  };
  const intents = (await listIntents(deps.stripe, window, read)).filter((pi) => claimsThisShop(deps.identity, pi));
  const refunds = await listRefunds(deps.stripe, window.from, read);
  const intentById = new Map(intents.map((pi) => [pi.id, pi]));
  const refundsByIntent = groupBy(
    refunds.filter((r) => r.payment_intent !== null),
    (r) => r.payment_intent!,
  );

  const paid = await paidOrdersCreated(deps.prisma, window);
  const related = await ordersOf(deps.prisma, {
    orderIds: intents.map((pi) => pi.metadata.orderId!),
    paymentIntentIds: [...intents.map((pi) => pi.id), ...refundsByIntent.keys()],
  });
  const orders = new Map([...related, ...paid].map((o) => [o.id, o]));
  const orderByIntent = new Map(
    [...orders.values()].filter((o) => o.paymentIntentId).map((o) => [o.paymentIntentId!, o]),
  );
  // A paid order of the window whose intent was created outside it (just before, or after its end).
  const missing = paid.filter((o) => o.paymentIntentId && !intentById.has(o.paymentIntentId));
  for (const order of missing) {
    const pi = await retrieveIfExists(deps.stripe, order.paymentIntentId!, read);
    if (pi) intentById.set(pi.id, pi);
  }

  const findings: Finding[] = [];
  const refundOf = (pi: RecordIntent) => refundState(pi, refundsByIntent.get(pi.id) ?? []);
  const standing = (pi: RecordIntent) => pi.status === "succeeded" && !["refunded", "pending"].includes(refundOf(pi));

  // Charges: at most one standing per attempt, and each standing one a paid order's.
  const byAttempt = groupBy(intents.filter(standing), attemptOf);
  for (const [attempt, charges] of byAttempt) {
    if (charges.length < 2) continue;
    const first = charges[0]!;
    findings.push({
      kind: "double_charge",
      key: `double_charge:${attempt}`,
      detail: `${charges.length} succeeded charges stand for one attempt: ${charges.map((c) => `${c.id} (${c.amount_received} ${c.currency})`).join(", ")}`,
      paymentIntentIds: charges.map((c) => c.id),
      ...idsOf(first),
      amountCents: charges.slice(1).reduce((sum, c) => sum + c.amount_received, 0),
      currency: first.currency,
      dashboardUrl: dashboardUrl(first.id),
    });
  }
  for (const pi of intents.filter(standing)) {
    if ((byAttempt.get(attemptOf(pi))?.length ?? 0) > 1) continue;
    const order = orderByIntent.get(pi.id) ?? orders.get(pi.metadata.orderId!.toLowerCase());
    if (order?.paymentIntentId === pi.id && order.status === "paid") continue;
    // Stripe decided a debit the shop has not heard of yet (a webhook or the catch-up will tell it):
    // open, not a finding, within the window in which Stripe decides one.
    if (order?.paymentIntentId === pi.id && order.status === "processing" && withinSettlementWindow(pi)) continue;
    // Still being worked on by its owner: not wrong yet (an attempt past its deadline is reported below).
    if (order && order.paymentIntentId === null && order.attemptStatus === "in_progress") continue;
    findings.push({
      kind: "charge_without_order",
      key: `charge_without_order:${pi.id}`,
      detail: order
        ? `${pi.id} charged ${pi.amount_received} ${pi.currency}, but order ${order.id} is ${order.status}${order.paymentIntentId && order.paymentIntentId !== pi.id ? ` and paid by ${order.paymentIntentId}` : ""}`
        : `${pi.id} charged ${pi.amount_received} ${pi.currency} for order ${pi.metadata.orderId}, which the shop does not have`,
      paymentIntentIds: [pi.id],
      ...idsOf(pi),
      amountCents: pi.amount_received,
      currency: pi.currency,
      dashboardUrl: dashboardUrl(pi.id),
    });
  }

  // Paid orders: each has a succeeded charge of its amount and currency, and the refund state Stripe has.
  for (const order of paid) {
    const pi = order.paymentIntentId ? intentById.get(order.paymentIntentId) : undefined;
    if (
      !pi ||
      pi.status !== "succeeded" ||
      pi.amount_received !== order.amountCents ||
      pi.currency !== order.currency
    ) {
      findings.push({
        kind: "order_without_charge",
        key: `order_without_charge:${order.id}`,
        detail: `order ${order.id} is paid (${order.amountCents} ${order.currency}) but ${pi ? `${pi.id} is ${pi.status}, ${pi.amount_received} ${pi.currency} received` : `${order.paymentIntentId ?? "no PaymentIntent"} is not at Stripe`}`,
        ...(pi ? { paymentIntentIds: [pi.id], dashboardUrl: dashboardUrl(pi.id) } : {}),
        orderId: order.id,
        customerId: order.customerId,
        amountCents: order.amountCents,
        currency: order.currency,
      });
    }
  }
  for (const order of orders.values()) {
    const pi = order.paymentIntentId ? intentById.get(order.paymentIntentId) : undefined;
    if (!pi) continue;
    const stripeSays = refundOf(pi);
    const shopSays = shopRefundState(order);
    if (agrees(shopSays, stripeSays)) continue;
    findings.push({
      kind: "refund_state_differs",
      key: `refund_state_differs:${order.id}`,
      detail: `order ${order.id}: the shop says ${shopSays}, Stripe says ${stripeSays} for ${pi.id}`,
      paymentIntentIds: [pi.id],
      orderId: order.id,
      customerId: order.customerId,
      amountCents: order.amountCents,
      currency: order.currency,
      dashboardUrl: dashboardUrl(pi.id),
    });
  }

  // Money owed: refunds that failed, their payment not refunded since.
  for (const refund of refunds) {
    if (refund.status !== "failed" || !refund.payment_intent) continue;
    const order = orderByIntent.get(refund.payment_intent);
    const pi = intentById.get(refund.payment_intent);
    if (!order && !pi) continue; // not this shop's
    if (pi && refundOf(pi) === "refunded") continue;
    findings.push({
      kind: "refund_failed",
      key: `refund_failed:${refund.id}`,
      detail: `refund ${refund.id} of ${refund.amount} ${refund.currency} failed (${refund.failure_reason ?? "no reason given"}): the shopper${order ? ` of order ${order.id}` : ""} is owed the money`,
      paymentIntentIds: [refund.payment_intent],
      ...(order ? { orderId: order.id, customerId: order.customerId } : pi ? idsOf(pi) : {}),
      amountCents: refund.amount,
      currency: refund.currency,
      refundId: refund.id,
      dashboardUrl: dashboardUrl(refund.payment_intent),
    });
  }

  // Never more back than was charged: the refunds that went or may still go, per payment.
  for (const [paymentIntentId, list] of refundsByIntent) {
    const pi = intentById.get(paymentIntentId);
    if (!pi) continue; // not this shop's, or charged before the window
    const given = list.filter((r) => r.status !== "failed" && r.status !== "canceled");
    const back = given.reduce((sum, r) => sum + r.amount, 0);
    if (back <= pi.amount_received) continue;
    findings.push({
      kind: "refunds_exceed_charge",
      key: `refunds_exceed_charge:${pi.id}`,
      detail: `refunds of ${pi.id} add up to ${back} ${pi.currency}, more than the ${pi.amount_received} it received`,
      paymentIntentIds: [pi.id],
      ...idsOf(pi),
      amountCents: back - pi.amount_received,
      currency: pi.currency,
      dashboardUrl: dashboardUrl(pi.id),
    });
  }
  // One Stripe refund per operator refund attempt (its key rides in the refund's metadata).
  const refundsByAttempt = groupBy(
    refunds.filter((r) => r.metadata?.attempt_key),
    (r) => r.metadata!.attempt_key!,
  );
  for (const [attemptKey, list] of refundsByAttempt) {
    if (list.length < 2) continue;
    findings.push({
      kind: "refund_attempt_repeated",
      key: `refund_attempt_repeated:${attemptKey}`,
      detail: `the operator's refund attempt ${attemptKey} made ${list.length} Stripe refunds: ${list.map((r) => `${r.id} (${r.amount})`).join(", ")}`,
      attemptKey,
      ...(list[0]!.payment_intent
        ? { paymentIntentIds: [list[0]!.payment_intent], dashboardUrl: dashboardUrl(list[0]!.payment_intent) }
        : {}),
      amountCents: list.slice(1).reduce((sum, r) => sum + r.amount, 0),
      currency: list[0]!.currency,
    });
  }

  // Things that should have ended.
  for (const attempt of await stuckAttempts(deps.prisma, window, new Date(now - deps.attemptDeadlineMs))) {
    findings.push({
      kind: "attempt_not_final",
      key: `attempt_not_final:${attempt.id}`,
      detail: `attempt ${attempt.key} of customer ${attempt.subjectId} is still in progress ${Math.round((now - attempt.createdAt.getTime()) / 60_000)} min after it began`,
      attemptKey: attempt.key,
      customerId: attempt.subjectId,
      ...(attempt.orderId ? { orderId: attempt.orderId } : {}),
      ...(attempt.paymentIntentId
        ? { paymentIntentIds: [attempt.paymentIntentId], dashboardUrl: dashboardUrl(attempt.paymentIntentId) }
        : {}),
    });
  }
  for (const event of await stuckEvents(deps.prisma, window, EVENT_STUCK_AFTER_ATTEMPTS)) {
    findings.push({
      kind: "event_not_processed",
      key: `event_not_processed:${event.id}`,
      detail: `${event.type} ${event.id} not processed after ${event.attempts} tries: ${event.lastError ?? "no error recorded"}`,
      eventId: event.id,
      ...(event.paymentIntentId
        ? { paymentIntentIds: [event.paymentIntentId], dashboardUrl: dashboardUrl(event.paymentIntentId) }
        : {}),
    });
  }
  const openBefore = Math.floor((now - deps.actionTimeoutMs) / 1000);
  for (const pi of intents) {
    if (!OPEN_STATUSES.includes(pi.status) || pi.created >= openBefore) continue;
    findings.push({
      kind: "intent_open",
      key: `intent_open:${pi.id}`,
      detail: `${pi.id} is still ${pi.status} ${Math.round((now / 1000 - pi.created) / 60)} min after it was created`,
      paymentIntentIds: [pi.id],
      ...idsOf(pi),
      amountCents: pi.amount,
      currency: pi.currency,
      dashboardUrl: dashboardUrl(pi.id),
    });
  }

  return {
    window: { from: window.from.toISOString(), to: window.to.toISOString() },
    intents: intents.length,
    counts: countByKind(findings),
    findings,
  };
}

/** Stripe's refund state of a payment: `pending` counts as refunded at once at Stripe, the network has not said yet. */
export type ProviderRefundState = "none" | "partial" | "pending" | "refunded" | "failed";

export function refundState(pi: RecordIntent, refunds: RecordRefund[]): ProviderRefundState {
  const sum = (status: string[]) =>
    refunds.filter((r) => status.includes(r.status ?? "")).reduce((total, r) => total + r.amount, 0);
  const received = pi.amount_received || pi.amount;
  if (sum(["succeeded"]) >= received) return "refunded";
  if (sum(["succeeded", "pending"]) >= received) return "pending";
  if (sum(["succeeded", "pending"]) > 0) return "partial";
  return refunds.some((r) => r.status === "failed") ? "failed" : "none";
}

function shopRefundState(order: ShopOrder): "none" | "refunded" | "failed" {
  if (order.refundFailedAt) return "failed";
  return order.refundedAt ? "refunded" : "none";
}

/** A partial refund leaves the order paid: the shop may record it or not (the order's refund fields say "all"). */
function agrees(shop: "none" | "refunded" | "failed", provider: ProviderRefundState): boolean {
  if (provider === "partial") return shop !== "failed";
  if (provider === "pending") return shop === "refunded";
  return shop === provider;
}

/** The attempt an intent was made for: its customer and Idempotency-Key, else its order (one per attempt). */
function attemptOf(pi: RecordIntent): string {
  const { customerId, idempotencyKey, orderId } = pi.metadata;
  return customerId && idempotencyKey ? `${customerId}:${idempotencyKey}`.toLowerCase() : orderId!.toLowerCase();
}

function idsOf(pi: RecordIntent): Pick<Finding, "orderId" | "customerId" | "attemptKey"> {
  const { orderId, customerId, idempotencyKey } = pi.metadata;
  return {
    ...(orderId ? { orderId: orderId.toLowerCase() } : {}),
    ...(customerId ? { customerId } : {}),
    ...(idempotencyKey ? { attemptKey: idempotencyKey.toLowerCase() } : {}),
  };
}

async function retrieveIfExists(stripe: Stripe, id: string, read: ReadOptions): Promise<RecordIntent | null> {
  try {
    return await withBackoff(() => stripe.paymentIntents.retrieve(id), "payment intent", read);
  } catch (err) {
    if ((err as { code?: string }).code === "resource_missing") return null;
    throw err;
  }
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/**
 * How long Stripe may take to decide a SEPA debit: up to 14 business days
 * (Stripe's SEPA Direct Debit pages), taken as 20 calendar days.
 */
export const SETTLEMENT_WINDOW_MS = 20 * 24 * 3_600_000;

function withinSettlementWindow(pi: { created: number }): boolean {
  return Date.now() - pi.created * 1000 <= SETTLEMENT_WINDOW_MS;
}
