import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { checkHealth } from "@/lib/health";
import { json } from "@/lib/http";
import { stripeProbe } from "@/lib/payments/stripe";

export const dynamic = "force-dynamic";

/** GET /api/health — readiness: `{ ok, db, payments }`, 503 while a dependency is down (Stripe's answer cached, see lib/health.ts). */
export async function GET() {
  const health = await checkHealth(db(), stripeProbe(), { providerCacheMs: env().HEALTH_PROVIDER_CACHE_MS });
  return json(health, health.ok ? 200 : 503, { "Cache-Control": "no-store" });
}
