import type { LedgerIntent, LedgerRefund } from "./checker/evidence";

/**
 * The second shop's check (`--second-shop`): two shops on one Stripe account
 * and key, and neither may act on the other's PaymentIntents. Judged from
 * the evidence alone, pure, so its own test feeds it crafted evidence:
 *
 * - the provider's ledger: every intent names its shop in its metadata;
 * - the second shop's writes to the provider, as its recorder saw them
 *   (provider-recorder.ts): one key, so the provider cannot say who asked;
 * - each shop's orders, with plain SQL;
 * - each shop's count of foreign intents seen (`checkout_foreign_intents_total`).
 *
 * An intent is the second shop's when its metadata names the second shop, and
 * the soak's otherwise (a broken build's untagged intents are the soak's).
 * Only the two shops write to the account, so a refund or a cancellation of
 * the second shop's intent that it never asked for was the soak's.
 */
export interface ProviderWrite {
  method: string;
  path: string;
  /** The PaymentIntent the write names, if any. */
  paymentIntent: string | null;
  /** `create`, `confirm`, `cancel`, `update`, `refund`, … */
  action: string;
}

export interface ShopOrders {
  shopId: string;
  orders: Array<{ id: string; paymentIntentId: string | null }>;
  /** `checkout_foreign_intents_total`, summed over the shop's processes and their restarts. */
  foreignIntentsSeen: number;
}

export interface CrossShopEvidence {
  soak: ShopOrders;
  second: ShopOrders;
  intents: LedgerIntent[];
  refunds: LedgerRefund[];
  secondShopWrites: ProviderWrite[];
}

export const CROSS_SHOP_FINDINGS = {
  refunded_by_the_other_shop: "a refund of the second shop's intent that the second shop never asked for",
  canceled_by_the_other_shop: "the second shop's intent cancelled, and the second shop never asked to cancel it",
  wrote_to_the_other_shops_intent:
    "the second shop wrote to (refunded, cancelled, confirmed, updated) the soak's intent",
  order_of_the_other_shops_intent: "a shop's database holds an order of the other shop's intent (restored or adopted)",
  never_saw_the_other_shop: "a shop counted no foreign intents: the other's traffic never reached it",
} as const;
export type CrossShopKind = keyof typeof CROSS_SHOP_FINDINGS;

export interface CrossShopFinding {
  kind: CrossShopKind;
  subject: string;
  evidence: string;
}

export interface CrossShopVerdict {
  findings: CrossShopFinding[];
  counts: Record<CrossShopKind, number>;
  figures: {
    /** Intents naming the second shop, and those of them that succeeded and stand. */
    secondShopIntents: number;
    secondShopPayments: number;
    /** What the second shop did to its own intents: not findings, the proof it acted at all. */
    secondShopRefunds: number;
    secondShopCancellations: number;
    soakIntents: number;
    foreignIntentsSeen: { soak: number; second: number };
  };
}

export function checkCrossShop(evidence: CrossShopEvidence): CrossShopVerdict {
  const { soak, second } = evidence;
  const isSecond = (pi: LedgerIntent) => pi.metadata.shop === second.shopId;
  const intentById = new Map(evidence.intents.map((pi) => [pi.id, pi]));
  const secondIntents = evidence.intents.filter(isSecond);
  const findings: CrossShopFinding[] = [];
  const add = (kind: CrossShopKind, subject: string, text: string) => findings.push({ kind, subject, evidence: text });

  const asked = (action: string) =>
    new Set(
      evidence.secondShopWrites.filter((w) => w.action === action && w.paymentIntent).map((w) => w.paymentIntent!),
    );
  const refundsAsked = asked("refund");
  const cancelsAsked = asked("cancel");

  // The soak's shop on the second shop's intents: every refund and cancellation is one the second shop asked for.
  for (const refund of evidence.refunds) {
    const pi = refund.payment_intent ? intentById.get(refund.payment_intent) : undefined;
    if (pi && isSecond(pi) && !refundsAsked.has(pi.id))
      add(
        "refunded_by_the_other_shop",
        pi.id,
        `${refund.id} (${refund.amount}, ${refund.status}) refunds ${pi.id} of ${second.shopId}, which never asked`,
      );
  }
  for (const pi of secondIntents) {
    if (pi.status === "canceled" && !cancelsAsked.has(pi.id))
      add("canceled_by_the_other_shop", pi.id, `${pi.id} of ${second.shopId} is canceled, and it never asked`);
  }

  // The second shop on the soak's intents: none of its writes names one.
  for (const write of evidence.secondShopWrites) {
    if (!write.paymentIntent) continue;
    const pi = intentById.get(write.paymentIntent);
    if (!pi || isSecond(pi)) continue;
    add(
      "wrote_to_the_other_shops_intent",
      pi.id,
      `${second.shopId} sent ${write.method} ${write.path} (${write.action}) for ${pi.id} of ${pi.metadata.shop ?? "no shop"}`,
    );
  }

  // Neither database restored or adopted the other's: no order carries the other's intent, or its attempt's id.
  const judgeOrders = (shop: ShopOrders, foreign: (pi: LedgerIntent) => boolean) => {
    const foreignOrderIds = new Map<string, LedgerIntent>();
    for (const pi of evidence.intents)
      if (foreign(pi) && pi.metadata.orderId) foreignOrderIds.set(pi.metadata.orderId.toLowerCase(), pi);
    for (const order of shop.orders) {
      const byIntent = order.paymentIntentId ? intentById.get(order.paymentIntentId) : undefined;
      const pi = byIntent && foreign(byIntent) ? byIntent : foreignOrderIds.get(order.id.toLowerCase());
      if (pi)
        add(
          "order_of_the_other_shops_intent",
          order.id,
          `${shop.shopId}'s order ${order.id} (${order.paymentIntentId ?? "no intent"}) is of ${pi.id}, which names ${pi.metadata.shop ?? "no shop"}`,
        );
    }
  };
  judgeOrders(soak, isSecond);
  judgeOrders(second, (pi) => !isSecond(pi));

  // Each saw the other: the fault of sharing an account really happened.
  for (const shop of [soak, second])
    if (shop.foreignIntentsSeen <= 0)
      add("never_saw_the_other_shop", shop.shopId, `${shop.shopId} counted ${shop.foreignIntentsSeen} foreign intents`);

  const refunded = new Map<string, number>();
  for (const r of evidence.refunds) {
    if (!r.payment_intent || r.status === "failed" || r.status === "canceled") continue;
    refunded.set(r.payment_intent, (refunded.get(r.payment_intent) ?? 0) + r.amount);
  }
  const counts = Object.fromEntries(Object.keys(CROSS_SHOP_FINDINGS).map((k) => [k, 0])) as Record<
    CrossShopKind,
    number
  >;
  for (const f of findings) counts[f.kind] += 1;
  return {
    findings,
    counts,
    figures: {
      secondShopIntents: secondIntents.length,
      secondShopPayments: secondIntents.filter(
        (pi) => pi.status === "succeeded" && (refunded.get(pi.id) ?? 0) < pi.amount,
      ).length,
      secondShopRefunds: evidence.refunds.filter((r) => {
        const pi = r.payment_intent ? intentById.get(r.payment_intent) : undefined;
        return pi !== undefined && isSecond(pi);
      }).length,
      secondShopCancellations: secondIntents.filter((pi) => pi.status === "canceled").length,
      soakIntents: evidence.intents.length - secondIntents.length,
      foreignIntentsSeen: { soak: soak.foreignIntentsSeen, second: second.foreignIntentsSeen },
    },
  };
}

/** The soak's shop's share of the ledger, for its own checker and convergence: the second shop's intents and their refunds left out. */
export function withoutShop<T extends { intents: LedgerIntent[]; refunds: LedgerRefund[] }>(
  ledger: T,
  shopId: string,
): T {
  const theirs = new Set(ledger.intents.filter((pi) => pi.metadata.shop === shopId).map((pi) => pi.id));
  return {
    ...ledger,
    intents: ledger.intents.filter((pi) => !theirs.has(pi.id)),
    refunds: ledger.refunds.filter((r) => !r.payment_intent || !theirs.has(r.payment_intent)),
  };
}

/** Only that shop's share of the ledger (the second shop's own checker). */
export function onlyShop<T extends { intents: LedgerIntent[]; refunds: LedgerRefund[] }>(ledger: T, shopId: string): T {
  const ours = new Set(ledger.intents.filter((pi) => pi.metadata.shop === shopId).map((pi) => pi.id));
  return {
    ...ledger,
    intents: ledger.intents.filter((pi) => ours.has(pi.id)),
    refunds: ledger.refunds.filter((r) => r.payment_intent !== null && ours.has(r.payment_intent)),
  };
}
