import { hasBearerToken } from "@/lib/bearer";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { checkHealth } from "@/lib/health";
import { json } from "@/lib/http";
import { keyPairChecked } from "@/lib/payments/key-pair";
import { stripeProbe, verifyKeyPair } from "@/lib/payments/stripe";

export const dynamic = "force-dynamic";

/**
 * GET /api/health — readiness: `{ ok, db, payments }`, 503 while a dependency is down (Stripe's answer cached, see
 * lib/health.ts); with `Authorization: Bearer <METRICS_TOKEN>` (or in development without one) also `alarms`.
 */
export async function GET(request: Request) {
  const { METRICS_TOKEN: token, NODE_ENV, HEALTH_PROVIDER_CACHE_MS } = env();
  const showAlarms = token === undefined ? NODE_ENV !== "production" : hasBearerToken(request, token);
  // The first readiness probe (at start-up) checks that the two keys are of one account.
  if (!keyPairChecked()) await verifyKeyPair();
  const health = await checkHealth(db(), stripeProbe(), { providerCacheMs: HEALTH_PROVIDER_CACHE_MS, showAlarms });
  return json(health, health.ok ? 200 : 503, { "Cache-Control": "no-store" });
}
