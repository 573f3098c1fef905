import { listOrders } from "@/lib/checkout/orders";
import { db } from "@/lib/db";
import { json, unauthenticated } from "@/lib/http";
import { currentCustomerId } from "@/lib/session";

/** GET /api/orders — the current customer's orders, newest first. */
export async function GET(request: Request) {
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();
  return json(await listOrders(db(), customerId), 200, { "Cache-Control": "no-store" });
}
