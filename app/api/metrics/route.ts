import { hasBearerToken } from "@/lib/bearer";
import { env } from "@/lib/env";
import { jsonError } from "@/lib/http";
import { observability } from "@/lib/observability";

export const dynamic = "force-dynamic";

/**
 * GET /api/metrics — this instance's counters in Prometheus text format.
 * With METRICS_TOKEN set, only for `Authorization: Bearer <token>`; without
 * it, open to anyone who can reach the port (keep it off the public internet).
 */
export async function GET(request: Request) {
  const token = env().METRICS_TOKEN;
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
  return new Response(await registry.metrics(), {
    headers: { "Content-Type": registry.contentType, "Cache-Control": "no-store" },
  });
}
