import { liveness } from "@/lib/health";
import { json } from "@/lib/http";

export const dynamic = "force-dynamic";

/** GET /api/health/live — liveness: the process answers. No database, no Stripe (see lib/health.ts). */
export function GET() {
  return json(liveness(), 200, { "Cache-Control": "no-store" });
}
