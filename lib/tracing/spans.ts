/**
 * The shop's spans and span attributes, on the OpenTelemetry API only: with
 * no SDK started (no OTEL_EXPORTER_OTLP_ENDPOINT) every call here meets the
 * API's no-op tracer and records nothing.
 *
 * Attributes never carry an Idempotency-Key (its hash instead), card data or
 * a client secret. Work on an attempt outside its request (webhook, events
 * catch-up, reconciler, the 3-D Secure return) runs in a span of its own that
 * carries the same `checkout.attempt.record_id` and key hash: the attribute
 * joins an attempt's traces (docs/decisions/0030).
 */
import { createHash } from "node:crypto";
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from "@opentelemetry/api";

export const TRACER_NAME = "checkout-never-twice";

/** A key's stand-in in traces: the first 128 bits of its SHA-256, hex. */
export function keyHash(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 32);
}

/** Runs `work` in a new active span, ending it (with the error, if any) when the work ends. */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * `handler` under the HTTP server span Next.js makes for a request it serves
 * (`POST /api/checkout`, continuing the caller's `traceparent`), for a request
 * answered before Next.js (the idempotency package's front door): its trace
 * has the same shape, plus `idempotency.front_door`.
 */
export function inServerSpan(
  route: string,
  handler: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return (request) => {
    const caller = propagation.extract(ROOT_CONTEXT, Object.fromEntries(request.headers));
    const { pathname, search } = new URL(request.url);
    const attributes = {
      "http.method": request.method,
      "http.target": pathname + search,
      "http.route": route,
      "idempotency.front_door": true,
    };
    return context.with(caller, () =>
      inSpan(
        `${request.method} ${route}`,
        attributes,
        async (span) => {
          const response = await handler(request);
          span.setAttribute("http.status_code", response.status);
          if (response.status >= 500) {
            span.setStatus({ code: SpanStatusCode.ERROR });
            span.setAttribute("error.type", String(response.status));
          }
          return response;
        },
        SpanKind.SERVER,
      ),
    );
  };
}

/** The active span if something records it (no SDK: none). */
export function recordingSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span : undefined;
}

/** The trace and span ids of the active span, for a log line (pino's mixin); nothing outside a trace. */
export function traceFields(): { trace_id?: string; span_id?: string; trace_flags?: string } {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !trace.isSpanContextValid(context)) return {};
  return {
    trace_id: context.traceId,
    span_id: context.spanId,
    trace_flags: `0${context.traceFlags.toString(16)}`,
  };
}

/** What an observed event adds to the active span: attributes for the attempt's ids and decisions. */
const ATTRIBUTES: Record<string, (fields: Record<string, unknown>) => Attributes> = {
  claim: (f) => ({
    "checkout.idempotency.decision": String(f.retaken ? "retake" : f.decision),
    ...(f.attempt !== undefined ? { "checkout.attempt.number": Number(f.attempt) } : {}),
  }),
  order: (f) => ({ "checkout.order.id": String(f.orderId) }),
  payment: (f) => ({
    "checkout.payment.outcome": String(f.kind),
    ...(typeof f.paymentIntentId === "string" ? { "stripe.payment_intent.id": f.paymentIntentId } : {}),
  }),
  reconcile: (f) => ({ "checkout.reconcile.outcome": String(f.outcome) }),
};

/** Fields never copied into a span: secrets, and the key itself (its hash goes instead). */
const WITHHELD = new Set(["key", "lockToken", "clientSecret", "client_secret", "err", "customerId"]);

/**
 * Adds one observed event to the active span: its ids and decisions as
 * attributes, and the event itself (scalar fields only) as a span event.
 */
export function annotateSpan(event: string, fields: Record<string, unknown>): void {
  const span = recordingSpan();
  if (!span) return;
  const ids: Attributes = {};
  if (typeof fields.key === "string") ids["checkout.idempotency.key_hash"] = keyHash(fields.key);
  if (typeof fields.recordId === "string") ids["checkout.attempt.record_id"] = fields.recordId;
  if (typeof fields.orderId === "string") ids["checkout.order.id"] = fields.orderId;
  span.setAttributes({ ...ids, ...(ATTRIBUTES[event]?.(fields) ?? {}) });
  const scalars: Attributes = {};
  for (const [name, value] of Object.entries(fields))
    if (!WITHHELD.has(name) && ["string", "number", "boolean"].includes(typeof value))
      scalars[name] = value as string | number | boolean;
  span.addEvent(event, { ...scalars, ...ids });
}

/** The events of a Stripe SDK client this module listens to (stripe-node's `on('response')`). */
interface StripeEvents {
  on(event: "response", handler: (event: StripeResponseEvent) => void): unknown;
}
interface StripeResponseEvent {
  method: string;
  path: string;
  status: number;
  request_id: string;
  idempotency_key?: string;
  request_start_time: number;
  request_end_time: number;
}

/**
 * One HTTP client span per answer Stripe sends (each SDK retry too), under
 * the span that made the call, with Stripe's request id (`Request-Id`) — the
 * id Stripe's support and dashboard logs know a request by.
 */
export function traceStripeCalls(stripe: StripeEvents, server: { host: string; port: number; protocol: string }): void {
  stripe.on("response", (event) => {
    const tracer = trace.getTracer(TRACER_NAME);
    if (!trace.getActiveSpan()?.isRecording()) return;
    // An object's id (pi_3Mt…: a prefix, an underscore, digits among letters) becomes {id}; a collection name has no digit.
    const template = event.path.split("?")[0]!.replace(/\/[a-z]+_(?=[A-Za-z0-9]*\d)[A-Za-z0-9]+(?=\/|$)/g, "/{id}");
    const span = tracer.startSpan(`${event.method} ${template}`, {
      kind: SpanKind.CLIENT,
      startTime: event.request_start_time,
      attributes: {
        "http.request.method": event.method,
        "http.response.status_code": event.status,
        "server.address": server.host,
        "server.port": server.port,
        "url.full": `${server.protocol}://${server.host}:${server.port}${event.path.split("?")[0]}`,
        "url.template": template,
        "stripe.request_id": event.request_id,
        ...(event.idempotency_key ? { "stripe.idempotency_key_hash": keyHash(event.idempotency_key) } : {}),
      },
    });
    if (event.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(event.request_end_time);
  });
}
