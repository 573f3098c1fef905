import { isUuid, json, jsonError, unauthenticated } from "@/lib/http";
import { labOnly } from "@/lib/lab/server/lab-only";
import { labEvents } from "@/lib/lab/server/event-log";
import { labLedger } from "@/lib/lab/server/ledger";
import { observeError } from "@/lib/observability";
import { stripe } from "@/lib/payments/stripe";
import { currentCustomerId } from "@/lib/session";

/**
 * GET /api/lab/ledger?run={id} — the gateway's PaymentIntents of one of the
 * caller's lab runs, per lane. Demo only (lib/lab/enabled.ts): each call is
 * a call to Stripe, which a public endpoint should not hand out.
 */
export const GET = labOnly(ledger);

async function ledger(request: Request) {
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();
  const runId = (new URL(request.url).searchParams.get("run") ?? "").toLowerCase();
  if (!isUuid(runId)) return jsonError(400, "invalid_request", "Pass the lab run's id as ?run=<uuid>.");
  const idempotencyKeys = new Set(
    labEvents(runId, customerId).flatMap((e) =>
      e.type === "request" && e.lane === "idempotent" && e.key ? [e.key] : [],
    ),
  );
  try {
    return json(await labLedger(stripe(), { runId, customerId, idempotencyKeys }), 200, {
      "Cache-Control": "no-store",
    });
  } catch (err) {
    observeError("lab_ledger_error", err, { runId });
    return jsonError(
      503,
      "unavailable",
      "The payment provider's ledger could not be read.",
      { retryAfterSeconds: 1 },
      { "Retry-After": "1" },
    );
  }
}
