/**
 * Starts OpenTelemetry tracing for this process when an OTLP endpoint is
 * configured (the standard OTEL_* variables), and does nothing otherwise: no
 * SDK, no instrumentation, no exporter. Imported by instrumentation.ts and
 * the maintenance scripts only, so no bundle of a page carries it.
 */
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { PrismaInstrumentation } from "@prisma/instrumentation";

/** Export is on when an OTLP endpoint is set and the SDK is not switched off (OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none). */
export function tracingWanted(env: Record<string, string | undefined> = process.env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return false;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  return (env.OTEL_TRACES_EXPORTER ?? "otlp").split(",").some((name) => name.trim() === "otlp");
}

const globalForTracing = globalThis as unknown as { tracingProvider?: NodeTracerProvider };

/**
 * Registers the tracer provider (W3C trace context, AsyncLocalStorage) with
 * an OTLP/HTTP exporter and the pg, undici and Prisma instrumentations;
 * returns the provider (to flush or shut down), or null when tracing is off.
 */
export function startTracing(serviceName = "checkout-never-twice"): NodeTracerProvider | null {
  if (!tracingWanted()) return null;
  if (globalForTracing.tracingProvider) return globalForTracing.tracingProvider;
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the default name.
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  // The exporter reads the endpoint, headers, timeout and compression from OTEL_EXPORTER_OTLP_*; it sends JSON.
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Statement text is kept (parameters never are): the engine's SQL carries no key or card data inline.
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
      new PrismaInstrumentation(),
    ],
  });
  globalForTracing.tracingProvider = provider;
  return provider;
}
