import { findOrder } from "@/lib/checkout/orders";
import { db } from "@/lib/db";
import { isUuid, json, jsonError, unauthenticated } from "@/lib/http";
import { currentCustomerId } from "@/lib/session";

/** GET /api/orders/{id} — one of the current customer's orders; 404 for anyone else's. */
export async function GET(request: Request, ctx: { params: Promise<{ id: string }> }) {
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();
  const { id } = await ctx.params;
  const order = isUuid(id) ? await findOrder(db(), customerId, id.toLowerCase()) : null;
  if (!order) return jsonError(404, "not_found", "No order with this id for this customer.");
  return json(order, 200, { "Cache-Control": "no-store" });
}
