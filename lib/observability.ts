import "server-only";
import pino from "pino";
import { Counter, Registry } from "prom-client";
import { env } from "@/lib/env";

/**
 * Every decision the payment path makes is one event: a structured JSON log
 * line (pino) and a Prometheus counter, from this one place. Events carry ids
 * (key, customer, order, PaymentIntent) and never card data.
 */
type Fields = Record<string, unknown>;

interface Observability {
  logger: pino.Logger;
  registry: Registry;
  claims: Counter<"decision">;
  responses: Counter<"status">;
  payments: Counter<"outcome">;
  reconciliations: Counter<"outcome">;
  cleanupDeleted: Counter;
  webhookEvents: Counter<"stage" | "type">;
  lateSuccessRefunds: Counter;
  strayIntents: Counter<"action">;
  providerRefusals: Counter<"status">;
  rateLimited: Counter<"rule">;
  customersExpired: Counter;
}

/** Hears every event after it is logged and counted (the lab's timeline subscribes; see lib/lab/server/attach.ts). */
export type ObservationListener = (event: string, fields: Fields) => void;

/** Wraps the handling of one request, e.g. to record it; the default just handles it. */
export type RequestTracer = (request: Request, operation: string, handle: () => Promise<Response>) => Promise<Response>;

interface Hooks {
  listeners: Set<ObservationListener>;
  tracer: RequestTracer | null;
}

// On globalThis: Next bundles each route separately, and instrumentation.ts
// subscribes once for all of them.
const globalForObs = globalThis as unknown as { observability?: Observability; observabilityHooks?: Hooks };

function hooks(): Hooks {
  globalForObs.observabilityHooks ??= { listeners: new Set(), tracer: null };
  return globalForObs.observabilityHooks;
}

/** Subscribes to every event; returns the unsubscribe. A listener that throws is logged, never breaks the request. */
export function onObserve(listener: ObservationListener): () => void {
  hooks().listeners.add(listener);
  return () => hooks().listeners.delete(listener);
}

/** Installs the one request tracer (or removes it with null). */
export function setRequestTracer(tracer: RequestTracer | null): void {
  hooks().tracer = tracer;
}

/** Handles a request through the installed tracer, if any. */
export function traceRequest(request: Request, operation: string, handle: () => Promise<Response>): Promise<Response> {
  const { tracer } = hooks();
  return tracer ? tracer(request, operation, handle) : handle();
}

function create(): Observability {
  const registry = new Registry();
  const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  return {
    logger: pino({ base: undefined, level: env().LOG_LEVEL }),
    registry,
    claims: counter("checkout_claims_total", "Idempotency claim decisions", ["decision"]),
    responses: counter("checkout_responses_total", "POST /api/checkout responses by status code", ["status"]),
    payments: counter("checkout_payments_total", "Payment attempts at the provider by outcome", ["outcome"]),
    reconciliations: counter("checkout_reconciliations_total", "Abandoned attempts driven to an outcome", ["outcome"]),
    cleanupDeleted: counter("idempotency_cleanup_deleted_total", "Expired idempotency records deleted", []),
    webhookEvents: counter(
      "webhook_events_total",
      "Stripe webhook events by stage: received, duplicate, rejected (bad signature), unstorable (jsonb cannot hold it), processed, deferred, failed, expired",
      ["stage", "type"],
    ),
    lateSuccessRefunds: counter(
      "checkout_late_success_refunds_total",
      "Payments that succeeded after their attempt was recorded as failed, refunded automatically",
      [],
    ),
    strayIntents: counter(
      "checkout_stray_intents_total",
      "PaymentIntents for an order already paid by another intent, undone (refunded or canceled)",
      ["action"],
    ),
    providerRefusals: counter(
      "stripe_refusals_total",
      "Answers from Stripe refusing the shop's key (401) or a permission (403): configuration to fix",
      ["status"],
    ),
    rateLimited: counter("rate_limited_total", "Requests refused with 429 by the abuse limits, by rule", ["rule"]),
    customersExpired: counter("customers_expired_total", "Guest customers without orders deleted by the cleanup", []),
  };
}

export function observability(): Observability {
  globalForObs.observability ??= create();
  return globalForObs.observability;
}

/** Logs one event and counts it; `alarm: true` logs it as an error for an operator, `alarm: false` at debug. */
export function observe(event: string, fields: Fields = {}): void {
  const o = observability();
  // A duplicate of a running attempt is routine and comes by the hundred in a
  // storm: counted like everything else, but logged at debug, so answering it
  // costs no more than a catalogue read.
  const routine =
    (event === "claim" && fields.decision === "in_progress") || (event === "response" && fields.status === 409);
  o.logger[fields.alarm === true ? "error" : routine || fields.alarm === false ? "debug" : "info"]({
    event,
    ...fields,
  });
  switch (event) {
    case "claim":
      o.claims.inc({ decision: String(fields.retaken ? "retake" : fields.decision) });
      break;
    case "payment":
      o.payments.inc({ outcome: String(fields.kind) });
      break;
    case "response":
      o.responses.inc({ status: String(fields.status) });
      break;
    case "reconcile":
      o.reconciliations.inc({ outcome: String(fields.outcome) });
      break;
    case "cleanup":
      o.cleanupDeleted.inc(Number(fields.deleted) || 0);
      break;
    case "webhook":
      o.webhookEvents.inc({ stage: String(fields.stage), type: String(fields.type ?? "unknown") });
      break;
    case "late_success_refund":
      o.lateSuccessRefunds.inc();
      break;
    case "stray_intent":
      o.strayIntents.inc({ action: String(fields.action) });
      break;
    case "provider_refused":
      o.providerRefusals.inc({ status: String(fields.status) });
      break;
    case "rate_limited":
      o.rateLimited.inc({ rule: String(fields.rule) });
      break;
    case "customer_cleanup":
      o.customersExpired.inc(Number(fields.deleted) || 0);
      break;
  }
  for (const listener of hooks().listeners) {
    try {
      listener(event, fields);
    } catch (err) {
      observeError("observation_listener_failed", err, { event });
    }
  }
}

/** Unexpected failures: logged with the error, counted nowhere else. */
export function observeError(event: string, error: unknown, fields: Fields = {}): void {
  observability().logger.error({
    event,
    ...fields,
    err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error),
  });
}
