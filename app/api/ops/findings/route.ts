import { hasBearerToken } from "@/lib/bearer";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { json } from "@/lib/http";
import { opsOff, opsUnauthenticated } from "@/lib/ops/http";
import { opsOverview } from "@/lib/ops/overview";

export const dynamic = "force-dynamic";

/** GET /api/ops/findings: what /ops shows, as JSON, for `Authorization: Bearer <OPS_TOKEN>`. */
export async function GET(request: Request) {
  const { OPS_TOKEN: token, PAYMENT_ATTEMPT_DEADLINE_MS } = env();
  if (!token) return opsOff();
  if (!hasBearerToken(request, token)) return opsUnauthenticated();
  const overview = await opsOverview(db(), { attemptDeadlineMs: PAYMENT_ATTEMPT_DEADLINE_MS });
  return json(overview, 200, { "Cache-Control": "no-store" });
}
