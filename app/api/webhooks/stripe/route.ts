import { after } from "next/server";
import { json, jsonError, readTextBody } from "@/lib/http";
import { observe, observeError } from "@/lib/observability";
import { webhookDeps } from "@/lib/services";
import { MAX_EVENT_BYTES } from "@/lib/webhooks/limits";
import { processDueEvents } from "@/lib/webhooks/process";
import { receiveEvent } from "@/lib/webhooks/receive";

/**
 * POST /api/webhooks/stripe (docs/contract.md, "Webhooks"). Verify and store, answer, then
 * process: the acknowledgement waits for one HMAC and one insert, never for
 * Stripe or the payment path. Processing starts right after the answer is
 * sent (`after`), in this process; if the process dies first, the stored
 * event is picked up by the maintenance loop.
 */
export async function POST(request: Request) {
  // Without a signature there is nothing to verify against: refused before a byte of the body is read.
  const signature = request.headers.get("stripe-signature");
  if (!signature || !/(^|,)\s*t=\d+\s*(,|$)/.test(signature) || !/(^|,)\s*v1=/.test(signature)) {
    observe("webhook", { stage: "rejected", reason: "no Stripe-Signature header" });
    return jsonError(400, "invalid_signature", "No Stripe-Signature header (t=…,v1=…) to verify the event with.");
  }
  const body = await readTextBody(request, MAX_EVENT_BYTES);
  if (!body.ok) return body.response;
  const deps = webhookDeps();
  try {
    const result = await receiveEvent(deps, {
      payload: body.value,
      signature,
    });
    if (result.kind === "invalid") return jsonError(400, "invalid_signature", result.message);
    // Redelivering it would fail the same way until Stripe gives up: acknowledged (logged and counted in receiveEvent).
    if (result.kind === "unstorable") return json({ received: true, stored: false });
    // A redelivery of an event not yet processed is a good moment to try again (a no-op unless it is due).
    after(() =>
      processDueEvents(deps, { eventId: result.eventId, limit: 1 }).catch((err) =>
        observeError("webhook_process_error", err, { eventId: result.eventId }),
      ),
    );
    return json({ received: true, duplicate: result.duplicate });
  } catch (err) {
    // Not stored (the database is unavailable): a non-2xx makes Stripe deliver it again.
    observeError("webhook_receive_error", err);
    return jsonError(
      503,
      "unavailable",
      "The event could not be stored; deliver it again.",
      {},
      { "Retry-After": "5" },
    );
  }
}
