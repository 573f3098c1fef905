import "server-only";
import { db, engineDatabase } from "../db";
import { orderRefunds, type OrderRefunds } from "../refunds/ledger";
import { webhookDeps } from "../services";
import { onRefund } from "../webhooks/process";

/**
 * The order as /ops and `GET /api/ops/orders/{orderId}` show it. A paid
 * order's refunds are first read from Stripe's list into the ledger by the
 * path Stripe's refund news takes, so a refund the shop never heard of (made
 * before the ledger existed, or whose news was lost) counts against what
 * remains: what remains never exceeds what Stripe has left to refund. One
 * list call per view; when Stripe cannot answer, the ledger as it stands
 * (Stripe still refuses a refund beyond the charge).
 */
export async function operatorOrder(orderId: string): Promise<OrderRefunds | null> {
  const database = engineDatabase(db());
  const order = await orderRefunds(database, orderId);
  if (!order || order.status !== "paid" || !order.paymentIntentId) return order;
  try {
    await onRefund(webhookDeps(), order.paymentIntentId);
  } catch {
    return order;
  }
  return orderRefunds(database, orderId);
}
