import "server-only";
import { isUuid } from "@/lib/http";
import { currentCustomerId } from "@/lib/session";
import { recordLabEvent, withLabContext } from "./event-log";
import { LAB_REQUEST_HEADER, LAB_RUN_HEADER, type LabEventBody, type Lane } from "@/lib/lab/lab-event";

/**
 * The one hook the checkout endpoints call for the lab. A request without the
 * lab's headers is handed straight to `handle`; a tagged one is served the same
 * way, inside a lab context, with its arrival and its answer recorded.
 */
export async function traceLabRequest(
  request: Request,
  lane: Lane,
  handle: () => Promise<Response>,
): Promise<Response> {
  const tag = labTagOf(request.headers);
  if (!tag) return handle();
  const customerId = await currentCustomerId(request).catch(() => null);
  return withLabContext({ ...tag, lane, customerId }, async () => {
    recordLabEvent({ type: "request", key: request.headers.get("idempotency-key")?.trim().toLowerCase() || null });
    let response: Response;
    try {
      response = await handle();
    } catch (err) {
      // The framework turns a throw into a bare 500; the timeline should show that too.
      recordLabEvent(responseEvent(500, new Headers(), null, request.signal.aborted));
      throw err;
    }
    const body: unknown = await response
      .clone()
      .json()
      .catch(() => null);
    recordLabEvent(responseEvent(response.status, response.headers, body, request.signal.aborted));
    return response;
  });
}

/** The run and request a lab page tagged a request with, or null for every other request. */
export function labTagOf(headers: Headers): { runId: string; requestId: string } | null {
  const runId = headers.get(LAB_RUN_HEADER);
  const requestId = headers.get(LAB_REQUEST_HEADER);
  if (!runId || !isUuid(runId) || !requestId || !/^\d{1,3}\.\d{1,3}$/.test(requestId)) return null;
  return { runId: runId.toLowerCase(), requestId };
}

function responseEvent(status: number, headers: Headers, body: unknown, clientGone: boolean): LabEventBody {
  const fields = (body ?? {}) as { orderId?: unknown; error?: unknown };
  const retryAfter = Number(headers.get("retry-after") ?? NaN);
  return {
    type: "response",
    status,
    replayed: headers.get("idempotent-replayed") === "true",
    retryAfterSeconds: Number.isFinite(retryAfter) ? retryAfter : null,
    orderId: typeof fields.orderId === "string" ? fields.orderId : null,
    error: typeof fields.error === "string" ? fields.error : null,
    clientGone,
  };
}
