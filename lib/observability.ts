/**
 * Every decision the payment path makes is one event: a structured JSON log
 * line (pino) and a Prometheus counter, from this one place. Events carry ids
 * (key, customer, order, PaymentIntent) and never card data.
 */
import "server-only";
import { frontDoorAnswers } from "@checkout/idempotency/front-door";
import pino from "pino";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { activeAlarms } from "@/lib/alarms";
import { env } from "@/lib/env";
import { annotateSpan, traceFields } from "@/lib/tracing/spans";

type Fields = Record<string, unknown>;

/**
 * The events that are counted or that a listener hears, with the fields they
 * must carry (any event may carry more). Any other event is a log line only.
 */
export interface ObservationEvents {
  claim: { decision: string; retaken?: boolean };
  order: { orderId: string };
  payment: { kind: string; orderId?: string; paymentIntentId?: string; reason?: string; declineCode?: string };
  response: { status: number };
  reconcile: { outcome: string };
  cleanup: { deleted: number };
  customer_cleanup: { deleted: number };
  webhook: { stage: string; type?: string };
  late_success_refund: Fields;
  refund_failed: { failureReason: string };
  stray_intent: { action: string };
  order_restored: { outcome: string };
  provider_refused: { status: number };
  rate_limited: { rule: string };
  foreign_intent: Fields;
  intent_tampered: Fields;
}

/** The fields an event must carry: its own, for the events above; anything, for the rest. */
export type FieldsOf<E extends string> = E extends keyof ObservationEvents ? ObservationEvents[E] & Fields : Fields;

/** One named event as a listener hears it: narrowing on `event` types `fields`. */
export type Observation = {
  [E in keyof ObservationEvents]: { event: E; fields: ObservationEvents[E] & Fields };
}[keyof ObservationEvents];

/** What the payment path is given to report its events with (`observe`, or nothing in some tests). */
export type Observe = <E extends string>(event: E, fields?: FieldsOf<E>) => void;

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
  refundFailures: Counter<"reason">;
  strayIntents: Counter<"action">;
  ordersRestored: Counter<"outcome">;
  providerRefusals: Counter<"status">;
  rateLimited: Counter<"rule">;
  foreignIntents: Counter;
  tamperedIntents: Counter;
  customersExpired: Counter;
  alarms: Gauge<"kind">;
  phases: Histogram<"phase">;
}

/** Hears every named event after it is logged and counted (the lab's timeline subscribes; see lib/lab/server/attach.ts). */
export type ObservationListener = (observation: Observation) => void;

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
  new Counter({
    name: "idempotency_front_door_total",
    help: "Requests handed to POST /api/checkout's handler before Next.js: duplicates of an attempt this process runs",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(frontDoorAnswers());
    },
  });
  return {
    // Every line logged inside a traced request carries its trace and span ids.
    logger: pino({ base: undefined, level: env().LOG_LEVEL, mixin: traceFields }),
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
    refundFailures: counter(
      "checkout_refund_failures_total",
      "Refunds Stripe accepted that the card network refused later: money not given back, for an operator",
      ["reason"],
    ),
    strayIntents: counter(
      "checkout_stray_intents_total",
      "PaymentIntents for an order already paid by another intent, undone (refunded or canceled)",
      ["action"],
    ),
    ordersRestored: counter(
      "checkout_orders_restored_total",
      "Succeeded PaymentIntents no order accounted for (the shop lost its rows): restored as paid, restored and refunded, or refunded as unrestorable",
      ["outcome"],
    ),
    providerRefusals: counter(
      "stripe_refusals_total",
      "Answers from Stripe refusing the shop's key (401) or a permission (403): configuration to fix",
      ["status"],
    ),
    rateLimited: counter("rate_limited_total", "Requests refused with 429 by the abuse limits, by rule", ["rule"]),
    foreignIntents: counter(
      "checkout_foreign_intents_total",
      "PaymentIntents of another shop on the same Stripe account, seen and left alone",
      [],
    ),
    tamperedIntents: counter(
      "checkout_tampered_intents_total",
      "PaymentIntents naming this shop whose metadata MAC does not verify: left alone, an alarm",
      [],
    ),
    customersExpired: counter("customers_expired_total", "Guest customers without orders deleted by the cleanup", []),
    alarms: new Gauge({
      name: "checkout_alarms",
      help: "Alarms standing now, by kind (lib/alarms.ts): payments still work, an operator must look",
      labelNames: ["kind"],
      registers: [registry],
      collect() {
        this.reset();
        for (const alarm of activeAlarms()) this.inc({ kind: alarm.kind });
      },
    }),
    phases: new Histogram({
      name: "checkout_phase_seconds",
      help: "Where a POST /api/checkout spends its time: claim (with its admission), order, provider, outcome",
      labelNames: ["phase"],
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5, 10, 30],
      registers: [registry],
    }),
  };
}

export function observability(): Observability {
  globalForObs.observability ??= create();
  return globalForObs.observability;
}

/** Logs one event and counts it; `alarm: true` logs it as an error for an operator, `alarm: false` at debug. */
export const observe: Observe = (event, given) => {
  const fields: Fields = given ?? {};
  const o = observability();
  // A duplicate of a running attempt is routine and comes by the hundred in a
  // storm: counted like everything else, but logged at debug, so answering it
  // costs no more than a catalogue read.
  const routine =
    (event === "claim" && fields.decision === "in_progress") || (event === "response" && fields.status === 409);
  const level = fields.alarm === true ? "error" : routine || fields.alarm === false ? "debug" : "info";
  // A line below LOG_LEVEL is not even built.
  if (o.logger.isLevelEnabled(level)) o.logger[level]({ event, ...fields });
  annotateSpan(event, fields);
  if (!isNamed(event)) return;
  (COUNT[event] as (o: Observability, fields: Fields) => void)(o, fields);
  for (const listener of hooks().listeners) {
    try {
      listener({ event, fields } as Observation);
    } catch (err) {
      observeError("observation_listener_failed", err, { event });
    }
  }
};

/** What each named event adds to the metrics (labels as strings, whatever an untyped caller sent). */
const COUNT: { [E in keyof ObservationEvents]: (o: Observability, fields: ObservationEvents[E] & Fields) => void } = {
  claim: (o, f) => o.claims.inc({ decision: String(f.retaken ? "retake" : f.decision) }),
  order: () => {},
  payment: (o, f) => o.payments.inc({ outcome: String(f.kind) }),
  response: (o, f) => o.responses.inc({ status: String(f.status) }),
  reconcile: (o, f) => o.reconciliations.inc({ outcome: String(f.outcome) }),
  cleanup: (o, f) => o.cleanupDeleted.inc(Number(f.deleted) || 0),
  customer_cleanup: (o, f) => o.customersExpired.inc(Number(f.deleted) || 0),
  webhook: (o, f) => o.webhookEvents.inc({ stage: String(f.stage), type: String(f.type ?? "unknown") }),
  late_success_refund: (o) => o.lateSuccessRefunds.inc(),
  refund_failed: (o, f) => o.refundFailures.inc({ reason: String(f.failureReason) }),
  stray_intent: (o, f) => o.strayIntents.inc({ action: String(f.action) }),
  order_restored: (o, f) => o.ordersRestored.inc({ outcome: String(f.outcome) }),
  provider_refused: (o, f) => o.providerRefusals.inc({ status: String(f.status) }),
  rate_limited: (o, f) => o.rateLimited.inc({ rule: String(f.rule) }),
  foreign_intent: (o) => o.foreignIntents.inc(),
  intent_tampered: (o) => o.tamperedIntents.inc(),
};

const isNamed = (event: string): event is keyof ObservationEvents => Object.hasOwn(COUNT, event);

/** The checkout's phases (`checkout_phase_seconds`), timed by the use case and the handler. */
export type CheckoutPhase = "claim" | "order" | "provider" | "outcome";

/** Adds one phase's duration, from `startedAt` (performance.now()) to now. */
export function observePhase(phase: CheckoutPhase, startedAt: number): void {
  observability().phases.observe({ phase }, (performance.now() - startedAt) / 1000);
}

/** Unexpected failures: logged with the error, counted nowhere else. */
export function observeError(event: string, error: unknown, fields: Fields = {}): void {
  observability().logger.error({
    event,
    ...fields,
    err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error),
  });
}
