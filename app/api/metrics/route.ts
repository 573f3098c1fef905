import { observability } from "@/lib/observability";

export const dynamic = "force-dynamic";

/** GET /api/metrics — this instance's counters in Prometheus text format. */
export async function GET() {
  const { registry } = observability();
  return new Response(await registry.metrics(), { headers: { "Content-Type": registry.contentType, "Cache-Control": "no-store" } });
}
