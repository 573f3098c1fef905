import { isUuid, json, jsonError, unauthenticated } from "@/lib/http";
import { labOnly } from "@/lib/lab/server/lab-only";
import { labEvents } from "@/lib/lab/server/event-log";
import type { LabEventsResponse } from "@/lib/lab/lab-event";
import { currentCustomerId } from "@/lib/session";

/** GET /api/lab/events?run={id} — what this app process recorded for one of the caller's lab runs. */
export const GET = labOnly(events);

async function events(request: Request) {
  const customerId = await currentCustomerId(request);
  if (!customerId) return unauthenticated();
  const runId = new URL(request.url).searchParams.get("run") ?? "";
  if (!isUuid(runId)) return jsonError(400, "invalid_request", "Pass the lab run's id as ?run=<uuid>.");
  const body: LabEventsResponse = { now: Date.now(), events: labEvents(runId.toLowerCase(), customerId) };
  return json(body, 200, { "Cache-Control": "no-store" });
}
