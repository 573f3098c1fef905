import { describe, expect, it } from "vitest";
import type { LabEvent, LabEventBody, Lane } from "./lab-event";
import { buildTimeline } from "./timeline";
import { laneTotals } from "./verdict";

const RUN = "00000000-0000-4000-8000-000000000001";
let seq = 0;
const ev = (lane: Lane, requestId: string, at: number, body: LabEventBody): LabEvent => ({
  ...body,
  lane,
  requestId,
  at,
  runId: RUN,
  seq: ++seq,
});
const request = (lane: Lane, id: string, at: number) => ev(lane, id, at, { type: "request", key: null });
const answer = (
  lane: Lane,
  id: string,
  at: number,
  status: number,
  extra: Partial<Extract<LabEventBody, { type: "response" }>> = {},
) =>
  ev(lane, id, at, {
    type: "response",
    status,
    replayed: false,
    retryAfterSeconds: null,
    orderId: null,
    error: null,
    clientGone: false,
    ...extra,
  });
const charge = (lane: Lane, id: string, at: number, paymentIntentId: string, orderId: string) =>
  ev(lane, id, at, { type: "charge", outcome: "succeeded", paymentIntentId, orderId, reason: null });

describe("lab timeline", () => {
  it("shows a naive double click as two charges, two orders written and one order seen", () => {
    const t = buildTimeline(
      [
        request("naive", "1.1", 1_000),
        request("naive", "2.1", 1_090),
        charge("naive", "1.1", 1_600, "pi_a", "order_a"),
        answer("naive", "1.1", 1_650, 201, { orderId: "order_a" }),
        charge("naive", "2.1", 1_700, "pi_b", "order_b"),
        answer("naive", "2.1", 1_720, 201, { orderId: "order_b" }),
      ],
      2_000,
    ).lanes.naive;
    expect(t.charges.map((c) => [c.at, c.paymentIntentId])).toEqual([
      [600, "pi_a"],
      [700, "pi_b"],
    ]);
    expect(t.seenOrderId).toBe("order_a");
    expect(t.ordersRecorded).toBe(2);
    expect(t.bars.map((b) => [b.requestId, b.start, b.end, b.label])).toEqual([
      ["1.1", 0, 650, "201 paid"],
      ["2.1", 90, 720, "201 paid"],
    ]);
  });

  it("shows a lost answer as lost, and the order seen is the one the retry's replay brought", () => {
    const t = buildTimeline(
      [
        request("idempotent", "1.1", 0),
        charge("idempotent", "1.1", 500, "pi_a", "order_a"),
        answer("idempotent", "1.1", 520, 201, { orderId: "order_a" }),
        ev("idempotent", "1.1", 521, { type: "dropped" }),
        request("idempotent", "1.2", 1_400),
        answer("idempotent", "1.2", 1_410, 201, { orderId: "order_a", replayed: true }),
      ],
      2_000,
    ).lanes.idempotent;
    expect(t.bars.map((b) => [b.label, b.tone])).toEqual([
      ["201 · cut off mid-answer", "lost"],
      ["201 replay", "replay"],
    ]);
    expect(t.charges).toHaveLength(1);
    expect(t.seenOrderId).toBe("order_a");
    expect(t.ordersRecorded).toBe(1);
  });

  it("labels duplicates with their Retry-After and draws open requests up to now", () => {
    const timeline = buildTimeline(
      [
        request("idempotent", "1.1", 100),
        request("idempotent", "2.1", 190),
        answer("idempotent", "2.1", 200, 409, { retryAfterSeconds: 1 }),
      ],
      1_100,
    );
    expect(timeline.span).toBe(1_000);
    expect(timeline.lanes.idempotent.bars.map((b) => [b.label, b.end])).toEqual([
      ["waiting…", null],
      ["409 in progress · Retry-After 1 s", 100],
    ]);
    expect(timeline.lanes.idempotent.seenOrderId).toBeNull();
    expect(timeline.lanes.naive.bars).toEqual([]);
  });

  it("does not count an answer the browser had stopped waiting for as seen", () => {
    const t = buildTimeline(
      [request("idempotent", "1.1", 0), answer("idempotent", "1.1", 8_000, 201, { orderId: "o", clientGone: true })],
      8_000,
    );
    expect(t.lanes.idempotent.bars[0]?.label).toBe("201 · browser gave up");
    expect(t.lanes.idempotent.seenOrderId).toBeNull();
  });
});

describe("lane totals", () => {
  const lane = (charges: number, seenOrderId: string | null) => ({
    bars: [],
    charges: Array.from({ length: charges }, (_, i) => ({ at: i, paymentIntentId: `pi_${i}`, requestId: "1.1" })),
    seenOrderId,
    ordersRecorded: charges,
  });

  it("prefers the gateway's ledger to the app's own events", () => {
    expect(laneTotals(lane(1, "o"), { charges: 2, intents: [] })).toMatchObject({
      charges: 2,
      chargesFrom: "ledger",
      ordersSeen: 1,
      verdict: { tone: "bad", text: "Charged twice for one order" },
    });
    expect(laneTotals(lane(1, "o"), undefined)).toMatchObject({
      charges: 1,
      chargesFrom: "events",
      verdict: { tone: "good", text: "Charged once for one order" },
    });
    expect(laneTotals(lane(1, null), undefined).verdict).toEqual({
      tone: "bad",
      text: "Charged once, no confirmation on screen yet",
    });
    expect(laneTotals(lane(0, null), undefined).verdict.tone).toBe("neutral");
  });
});
