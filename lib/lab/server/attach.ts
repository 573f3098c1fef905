import "server-only";
import { onObserve, setRequestTracer } from "@/lib/observability";
import { tapLabEvent } from "./event-log";
import { traceLabRequest } from "./lab-trace";

/**
 * Plugs the lab into what the app already emits, once per server process
 * (instrumentation.ts): the payment path's events feed the lab's timeline,
 * and requests to the real checkout are recorded when a lab page tagged them.
 * The app never imports the lab; untagged requests pass straight through.
 */
export function attachLab(): void {
  const attached = globalThis as unknown as { labAttached?: boolean };
  if (attached.labAttached) return;
  attached.labAttached = true;
  onObserve(tapLabEvent);
  setRequestTracer((request, _operation, handle) => traceLabRequest(request, "idempotent", handle));
}
