import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { SpanKind } from "@opentelemetry/api";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { annotateSpan, inServerSpan, inSpan, keyHash, traceFields, traceStripeCalls } from "./spans";
import { startTracing, tracingWanted } from "./start";

/** One OTLP/HTTP receiver: every JSON export request body it is sent. */
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
  events?: Array<{ name: string; attributes: Array<{ key: string; value: Record<string, unknown> }> }>;
};
const exports: Array<{ path: string; contentType: string | undefined; spans: OtlpSpan[] }> = [];
const receiver = createServer((request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
    };
    const spans = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    exports.push({ path: request.url ?? "", contentType: request.headers["content-type"], spans });
    response.writeHead(200, { "Content-Type": "application/json" }).end("{}");
  });
});

const attribute = (span: OtlpSpan | undefined, key: string) => {
  const value = span?.attributes.find((a) => a.key === key)?.value;
  return value && Object.values(value)[0];
};

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await startTracing()?.shutdown();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  await new Promise((resolve) => receiver.close(resolve));
});

describe("tracing", () => {
  it("is off without an OTLP endpoint, or when switched off", () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })).toBe(false);
  });

  it("exports a request's span over OTLP/HTTP JSON with the attempt's ids, the key's hash, fence events and Stripe's request id", async () => {
    const provider = startTracing("checkout-test")!;
    expect(provider).not.toBeNull();
    const key = "0b6f7a52-5d0e-4c1f-9a2b-3c4d5e6f7a8b";
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino(
      { base: undefined, mixin: traceFields },
      { write: (line: string) => lines.push(JSON.parse(line)) },
    );
    const handlers: Array<(event: never) => void> = [];
    const stripe = { on: (_event: "response", handler: (event: never) => void) => handlers.push(handler) };
    traceStripeCalls(stripe, { host: "api.stripe.com", port: 443, protocol: "https" });

    const traceId = await inSpan(
      "checkout",
      { "http.route": "/api/checkout" },
      async (span) => {
        annotateSpan("claim", {
          decision: "claimed",
          retaken: true,
          attempt: 2,
          key,
          recordId: "rec_1",
          lockToken: "t",
        });
        annotateSpan("order", { orderId: "ord_1", key });
        const now = Date.now();
        for (const handler of handlers)
          handler({
            method: "POST",
            path: "/v1/payment_intents/pi_3Mt8aB2eZvKYlo2C1x/confirm",
            status: 200,
            request_id: "req_abc123",
            idempotency_key: `${key}-create`,
            request_start_time: now - 10,
            request_end_time: now,
          } as never);
        annotateSpan("fence_refused", { recordId: "rec_1", attempt: 1, outcome: "succeeded" });
        logger.info({ event: "inside" });
        return span.spanContext().traceId;
      },
      SpanKind.SERVER,
    );
    logger.info({ event: "outside" });
    await provider.forceFlush();

    const spans = exports.flatMap((e) => e.spans).filter((s) => s.traceId === traceId);
    expect(exports[0]).toMatchObject({ path: "/v1/traces", contentType: "application/json" });
    const root = spans.find((s) => s.name === "checkout");
    expect(attribute(root, "checkout.idempotency.decision")).toBe("retake");
    expect(attribute(root, "checkout.attempt.record_id")).toBe("rec_1");
    expect(attribute(root, "checkout.order.id")).toBe("ord_1");
    expect(attribute(root, "checkout.idempotency.key_hash")).toBe(keyHash(key));
    expect(root?.events?.map((e) => e.name)).toEqual(["claim", "order", "fence_refused"]);
    // Never the key itself, nor the owner's lock token, anywhere in the export.
    expect(JSON.stringify(exports)).not.toContain(key);
    expect(JSON.stringify(exports)).not.toContain('"lockToken"');

    const call = spans.find((s) => s.name === "POST /v1/payment_intents/{id}/confirm");
    expect(call).toMatchObject({ parentSpanId: root!.spanId, kind: 3 /* CLIENT */ });
    expect(attribute(call, "stripe.request_id")).toBe("req_abc123");
    expect(attribute(call, "http.response.status_code")).toBe(200);

    expect(lines[0]).toMatchObject({ event: "inside", trace_id: traceId, span_id: root!.spanId });
    expect(lines[1]).toEqual(expect.not.objectContaining({ trace_id: expect.anything() }));
  });

  it("opens a server span that continues the caller's traceparent for a request answered before Next.js", async () => {
    const provider = startTracing("checkout-test")!;
    const caller = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };
    const handler = inServerSpan("/api/checkout", async (request) => {
      await inSpan("checkout", {}, async () => undefined);
      return new Response(null, { status: Number(new URL(request.url).searchParams.get("status")) });
    });
    for (const status of [409, 503]) {
      const request = new Request(`http://shop.test/api/checkout?status=${status}`, {
        method: "POST",
        headers: { traceparent: `00-${caller.traceId}-${caller.spanId}-01` },
      });
      expect((await handler(request)).status).toBe(status);
    }
    await provider.forceFlush();

    const spans = exports.flatMap((e) => e.spans).filter((s) => s.traceId === caller.traceId);
    const servers = spans.filter((s) => s.kind === 2 /* SERVER */);
    expect(servers.map((s) => [s.name, s.parentSpanId, attribute(s, "http.status_code")])).toEqual([
      ["POST /api/checkout", caller.spanId, 409],
      ["POST /api/checkout", caller.spanId, 503],
    ]);
    for (const server of servers) {
      expect(attribute(server, "http.route")).toBe("/api/checkout");
      expect(attribute(server, "http.method")).toBe("POST");
      expect(attribute(server, "idempotency.front_door")).toBe(true);
      // The handler's own spans are its children.
      expect(spans.some((s) => s.name === "checkout" && s.parentSpanId === server.spanId)).toBe(true);
    }
    // A 5xx is an error, as Next.js marks its own (OTLP's status code 2).
    expect(servers.map((s) => [s.status?.code ?? 0, attribute(s, "error.type")])).toEqual([
      [0, undefined],
      [2, "503"],
    ]);
  });
});
