import { json } from "@/lib/http";
import { noOrder, operatorOrderRoute } from "@/lib/ops/operator-request";
import { operatorOrder } from "@/lib/ops/order-view";

export const dynamic = "force-dynamic";

/** GET /api/ops/orders/{orderId}: what was charged, every refund with its state, and what remains. */
export async function GET(request: Request, { params }: { params: Promise<{ orderId: string }> }) {
  return operatorOrderRoute(request, params, async (orderId) => {
    const order = await operatorOrder(orderId);
    return order ? json(order, 200, { "Cache-Control": "no-store" }) : noOrder(orderId);
  });
}
