import { registerAuditMetrics } from "@/lib/audit/metrics";
import { hasBearerToken } from "@/lib/bearer";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { jsonError } from "@/lib/http";
import { observability } from "@/lib/observability";

export const dynamic = "force-dynamic";

/**
 * GET /api/metrics — this instance's counters in Prometheus text format.
 * With METRICS_TOKEN set, only for `Authorization: Bearer <token>`. Without
 * it, open in development (the demo) and 404 in production: a production
 * server never hands its counters to whoever can reach the port.
 */
export async function GET(request: Request) {
  const { METRICS_TOKEN: token, NODE_ENV } = env();
  if (token === undefined && NODE_ENV === "production") {
    return jsonError(
      404,
      "not_found",
      "Metrics are off: set METRICS_TOKEN to serve them in production.",
      {},
      {
        "Cache-Control": "no-store",
      },
    );
  }
  if (token !== undefined && !hasBearerToken(request, token)) {
    return jsonError(
      401,
      "unauthenticated",
      "Send Authorization: Bearer <METRICS_TOKEN>.",
      {},
      {
        "WWW-Authenticate": 'Bearer realm="metrics"',
        "Cache-Control": "no-store",
      },
    );
  }
  const { registry } = observability();
  registerAuditMetrics(registry, db);
  return new Response(await registry.metrics(), {
    headers: { "Content-Type": registry.contentType, "Cache-Control": "no-store" },
  });
}
