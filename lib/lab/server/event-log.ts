/**
 * The lab's event log: an in-memory ring buffer per app process. Only
 * requests a lab page tagged (see lab-trace.ts) are recorded; the tag
 * travels with the request through AsyncLocalStorage, so the payment path
 * needs no lab parameters: `tapLabEvent` listens to `observe()` (attach.ts)
 * and drops every event at once outside a lab request.
 */
import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import type { LabEvent, LabEventBody, Lane } from "@/lib/lab/lab-event";
import type { Observation } from "@/lib/observability";

export interface LabContext {
  runId: string;
  lane: Lane;
  requestId: string;
  /** Whose session sent the request: only that customer may read its events. */
  customerId: string | null;
}

type Stored = LabEvent & { customerId: string | null };

/** Enough for dozens of runs; older events are forgotten first. */
export const LAB_LOG_CAPACITY = 5_000;

interface Log {
  context: AsyncLocalStorage<LabContext>;
  events: Stored[];
  seq: number;
}

// On globalThis: Next bundles each route separately, and the context set by
// one route's copy of this module must be the one observe()'s copy reads.
const globalForLab = globalThis as unknown as { labEventLog?: Log };

function log(): Log {
  globalForLab.labEventLog ??= { context: new AsyncLocalStorage(), events: [], seq: 0 };
  return globalForLab.labEventLog;
}

export function withLabContext<T>(context: LabContext, fn: () => T): T {
  return log().context.run(context, fn);
}

/** Records one event for the lab request being served, if any. */
export function recordLabEvent(body: LabEventBody, context = log().context.getStore()): void {
  if (!context) return;
  const l = log();
  const { customerId, ...tag } = context;
  l.events.push({ ...body, ...tag, customerId, seq: ++l.seq, at: Date.now() });
  if (l.events.length > LAB_LOG_CAPACITY) l.events.splice(0, l.events.length - LAB_LOG_CAPACITY);
}

/**
 * observe()'s hook: the payment path's own events, translated for the
 * timeline (its values checked again: the checkout's calls are typed only as
 * far as its dependencies say).
 */
export function tapLabEvent({ event, fields }: Observation): void {
  if (!log().context.getStore()) return;
  if (event === "claim")
    recordLabEvent({ type: "claim", decision: String(fields.decision), retaken: fields.retaken === true });
  if (event === "order" && typeof fields.orderId === "string")
    recordLabEvent({ type: "order", orderId: fields.orderId });
  if (event === "payment") {
    const outcome = fields.kind === "succeeded" || fields.kind === "declined" ? fields.kind : "unknown";
    recordLabEvent({
      type: "charge",
      outcome,
      paymentIntentId: text(fields.paymentIntentId),
      orderId: text(fields.orderId),
      reason: text(fields.reason) ?? text(fields.declineCode),
    });
  }
}

/** One run's events, oldest first, for the customer whose page sent them. */
export function labEvents(runId: string, customerId: string): LabEvent[] {
  return log()
    .events.filter((e) => e.runId === runId && e.customerId === customerId)
    .map(({ customerId: _owner, ...event }) => event);
}

function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
