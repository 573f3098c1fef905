import { db } from "@/lib/db";
import { checkHealth } from "@/lib/health";
import { json } from "@/lib/http";
import { stripeProbe } from "@/lib/payments/stripe";

export const dynamic = "force-dynamic";

export async function GET() {
  const health = await checkHealth(db(), stripeProbe());
  return json(health, health.ok ? 200 : 503, { "Cache-Control": "no-store" });
}
