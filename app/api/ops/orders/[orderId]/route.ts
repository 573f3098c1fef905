import { env } from "@/lib/env";
import { json, jsonError } from "@/lib/http";
import { isUuid } from "@/lib/uuid";
import { opsOff, opsUnauthenticated } from "@/lib/ops/http";
import { isOperatorRequest } from "@/lib/ops/operator-request";
import { operatorOrder } from "@/lib/ops/order-view";

export const dynamic = "force-dynamic";

/** GET /api/ops/orders/{orderId}: what was charged, every refund with its state, and what remains. */
export async function GET(request: Request, { params }: { params: Promise<{ orderId: string }> }) {
  if (!env().OPS_TOKEN) return opsOff();
  if (!(await isOperatorRequest(request))) return opsUnauthenticated();
  const { orderId } = await params;
  const order = isUuid(orderId) ? await operatorOrder(orderId) : null;
  if (!order) return jsonError(404, "not_found", `No order ${orderId}.`, {}, { "Cache-Control": "no-store" });
  return json(order, 200, { "Cache-Control": "no-store" });
}
