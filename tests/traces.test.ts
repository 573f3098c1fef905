import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killDuringPayment } from "./helpers/crash";
import { useTestApp } from "./helpers/harness";
import { cart, newKey, sleep, waitFor } from "./helpers/shopper";

/**
 * The shop's traces, read by a real OTLP/HTTP receiver (JSON, as the
 * exporter sends it): a checkout whose first owner was killed mid-charge is
 * retaken by the retry, which makes the one Stripe call (replayed by Stripe
 * under the attempt's key) and the fenced write, all in the retry's trace.
 */
type Attribute = { key: string; value: Record<string, unknown> };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Attribute[];
  events?: Array<{ name: string; attributes: Attribute[] }>;
};
const spans: OtlpSpan[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
    };
    spans.push(...body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    response.writeHead(200, { "Content-Type": "application/json" }).end("{}");
  });
});
const valueOf = (attributes: Attribute[] | undefined, key: string) => {
  const value = attributes?.find((a) => a.key === key)?.value;
  return value && Object.values(value)[0];
};

const TTL_MS = 60_000;
const env: Record<string, string> = {
  IDEMPOTENCY_IN_PROGRESS_TTL_MS: String(TTL_MS),
  STRIPE_TIMEOUT_MS: "5000",
  STRIPE_MAX_NETWORK_RETRIES: "0",
  MAINTENANCE_INTERVAL_MS: "0", // the shopper's retry retakes the claim, not a background reconciler
  OTEL_BSP_SCHEDULE_DELAY: "100",
};
// Registered before the app's own hook: the app starts with the receiver's address.
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => receiver.close(resolve)));
const h = useTestApp(env);

describe("traces", () => {
  it("follow a checkout retaken after its owner was killed mid-charge: the retake, one Stripe call with its request id, the fenced write", async () => {
    const shopper = await h.shopper();
    const key = newKey();
    await killDuringPayment(h, shopper, key);
    await h.app.restart();
    await waitFor("the orphaned charge to land", async () => (await h.emulator.stats()).charges === 1, 10_000);
    expect((await h.db.ageAttempt(shopper.customerId!, key, TTL_MS)).lock_age_ms).toBeGreaterThan(TTL_MS);
    let retry = await shopper.checkout(key, cart());
    for (let i = 0; retry.status === 409 && i < 10; i++) {
      await sleep(500);
      retry = await shopper.checkout(key, cart());
    }
    expect(retry.status).toBe(201);

    const keyHash = createHash("sha256").update(key).digest("hex").slice(0, 32);
    const isRetake = (s: OtlpSpan) =>
      s.name === "checkout" &&
      valueOf(s.attributes, "checkout.idempotency.key_hash") === keyHash &&
      valueOf(s.attributes, "checkout.idempotency.decision") === "retake";
    await waitFor("the retake's trace to be exported", async () => spans.some(isRetake), 15_000);
    const request = spans.find(isRetake)!;
    expect(valueOf(request.attributes, "checkout.attempt.number")).toBe(2);
    expect(valueOf(request.attributes, "checkout.order.id")).toBe(retry.body.orderId);
    expect(valueOf(request.attributes, "http.route")).toBe("/api/checkout");
    expect(valueOf(request.attributes, "http.response.status_code")).toBe(201);
    const recordId = valueOf(request.attributes, "checkout.attempt.record_id");
    expect(recordId).toEqual(expect.any(String));

    const events = request.events!.map((e) => e.name);
    expect(events).toEqual(expect.arrayContaining(["claim", "payment", "outcome_recorded"]));
    expect(events).not.toContain("fence_refused");
    const recorded = request.events!.find((e) => e.name === "outcome_recorded")!;
    expect(valueOf(recorded.attributes, "status")).toBe(201);

    await waitFor(
      "the Stripe call's span",
      async () => spans.some((s) => s.traceId === request.traceId && valueOf(s.attributes, "stripe.request_id")),
      15_000,
    );
    const stripeCalls = spans.filter(
      (s) => s.traceId === request.traceId && valueOf(s.attributes, "stripe.request_id"),
    );
    expect(stripeCalls).toHaveLength(1);
    expect(stripeCalls[0]).toMatchObject({ name: "POST /v1/payment_intents", kind: 3 });
    expect(valueOf(stripeCalls[0]!.attributes, "stripe.request_id")).toMatch(/^req_/);
    expect(await h.emulator.stats()).toMatchObject({ charges: 1 });

    // The database's statements, under the stable database conventions, in the same trace.
    const statements = spans.filter(
      (s) => s.traceId === request.traceId && valueOf(s.attributes, "db.system.name") === "postgresql",
    );
    expect(statements.map((s) => String(valueOf(s.attributes, "db.query.text")))).toEqual(
      expect.arrayContaining([expect.stringContaining("idempotency_keys")]),
    );

    // Never the key itself.
    expect(JSON.stringify(spans)).not.toContain(key);
  });

  it("continue the caller's trace for a duplicate answered before Next.js, in the server span Next.js makes", async () => {
    await h.emulator.faults({ gate: true });
    const shopper = await h.shopper();
    const key = newKey();
    const first = shopper.checkout(key, cart());
    await h.emulator.held(1); // the PaymentIntent's create, at Stripe's gate

    // The same duplicate through the front door and, with a query string the door leaves alone, through Next.js.
    const callers = { door: "/api/checkout", next: "/api/checkout?via=next" };
    const traced: Record<string, { traceId: string; parentId: string }> = {};
    for (const [way, path] of Object.entries(callers)) {
      const caller = { traceId: randomBytes(16).toString("hex"), parentId: randomBytes(8).toString("hex") };
      traced[way] = caller;
      const answer = await shopper.request("POST", path, {
        body: cart(),
        headers: { "idempotency-key": key, traceparent: `00-${caller.traceId}-${caller.parentId}-01` },
      });
      expect(answer.status).toBe(409);
    }
    await h.emulator.faults({ gate: false });
    expect((await first).status).toBe(201);

    for (const [way, caller] of Object.entries(traced)) {
      const server = () =>
        spans.find((s) => s.traceId === caller.traceId && s.parentSpanId === caller.parentId && s.kind === 2);
      // Next.js puts its own spans between; the door hands the request straight to the route's handler.
      const checkout = () =>
        spans.find(
          (s) =>
            s.traceId === caller.traceId &&
            s.name === "checkout" &&
            (way === "next" || s.parentSpanId === server()?.spanId),
        );
      await waitFor(`the ${way} duplicate's spans`, async () => Boolean(server() && checkout()), 15_000);
      expect(server()!.name).toBe("POST /api/checkout");
      expect(valueOf(server()!.attributes, "http.route")).toBe("/api/checkout");
      expect(valueOf(server()!.attributes, "http.status_code")).toBe(409);
      expect(valueOf(server()!.attributes, "idempotency.front_door")).toBe(way === "door" ? true : undefined);
      expect(valueOf(checkout()!.attributes, "checkout.idempotency.decision")).toBe("in_progress");
    }
  });
});
