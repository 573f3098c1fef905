import { LANES, type LabEvent, type Lane } from "./lab-event";

/**
 * Turns a run's events into what the timeline draws: one bar per request
 * (arrival to answer, on the server's clock), the gateway's charges as marks,
 * and the totals. Pure, so the page only draws and tests need no browser.
 */
export type BarTone = "paid" | "replay" | "wait" | "error" | "lost" | "pending";

export interface RequestBar {
  requestId: string;
  press: number;
  /** 1 for the press's first request, 2 for its first retry… */
  attempt: number;
  /** ms since the run's first event. */
  start: number;
  end: number | null;
  status: number | null;
  label: string;
  tone: BarTone;
}

export interface ChargeMark {
  at: number;
  paymentIntentId: string | null;
  requestId: string;
}

export interface LaneTimeline {
  bars: RequestBar[];
  charges: ChargeMark[];
  /** The order whose confirmation the shopper's page shows: the first paid answer that reached it. */
  seenOrderId: string | null;
  /** Every order the shop wrote for the run, seen or not. */
  ordersRecorded: number;
}

export interface RunTimeline {
  /** ms from the first event to the last (or to now while requests are open). */
  span: number;
  lanes: Record<Lane, LaneTimeline>;
}

export function buildTimeline(events: readonly LabEvent[], now: number): RunTimeline {
  const t0 = Math.min(...events.map((e) => e.at), now);
  const lanes = Object.fromEntries(
    LANES.map((lane) => [
      lane,
      laneTimeline(
        events.filter((e) => e.lane === lane),
        t0,
      ),
    ]),
  ) as Record<Lane, LaneTimeline>;
  const ends = LANES.flatMap((lane) => lanes[lane].bars.map((b) => b.end ?? now - t0));
  return { span: Math.max(0, now - t0, ...ends), lanes };
}

function laneTimeline(events: readonly LabEvent[], t0: number): LaneTimeline {
  const byRequest = new Map<string, LabEvent[]>();
  for (const e of events) byRequest.set(e.requestId, [...(byRequest.get(e.requestId) ?? []), e]);
  const bars = [...byRequest.entries()]
    .flatMap(([requestId, own]) => barOf(requestId, own, t0))
    .sort(byPressThenAttempt);

  const charges = new Map<string, ChargeMark>();
  const orders = new Set<string>();
  let seen: { at: number; orderId: string } | null = null;
  for (const e of events) {
    if (e.type === "charge" && e.outcome === "succeeded") {
      charges.set(e.paymentIntentId ?? `${e.requestId}@${e.at}`, {
        at: e.at - t0,
        paymentIntentId: e.paymentIntentId,
        requestId: e.requestId,
      });
    }
    const orderId = e.type === "order" || e.type === "charge" || e.type === "response" ? e.orderId : null;
    if (orderId) orders.add(orderId);
    if (
      e.type === "response" &&
      e.status === 201 &&
      e.orderId &&
      reachedBrowser(e, byRequest.get(e.requestId) ?? []) &&
      (!seen || e.at < seen.at)
    ) {
      seen = { at: e.at, orderId: e.orderId };
    }
  }
  return {
    bars,
    charges: [...charges.values()].sort((a, b) => a.at - b.at),
    seenOrderId: seen?.orderId ?? null,
    ordersRecorded: orders.size,
  };
}

function barOf(requestId: string, own: readonly LabEvent[], t0: number): RequestBar[] {
  const start = own.find((e) => e.type === "request");
  if (!start) return []; // older than the ring buffer remembers
  const [press = 0, attempt = 0] = requestId.split(".").map(Number);
  const response = own.find((e) => e.type === "response");
  const dropped = own.some((e) => e.type === "dropped");
  const base = { requestId, press, attempt, start: start.at - t0 };
  if (!response || response.type !== "response")
    return [{ ...base, end: null, status: null, label: "waiting…", tone: "pending" }];
  const end = response.at - t0;
  const status = response.status;
  if (dropped) return [{ ...base, end, status, label: `${status} · cut off mid-answer`, tone: "lost" }];
  if (response.clientGone) return [{ ...base, end, status, label: `${status} · browser gave up`, tone: "lost" }];
  return [{ ...base, end, status, ...describe(response) }];
}

function describe(r: Extract<LabEvent, { type: "response" }>): { label: string; tone: BarTone } {
  const retryAfter = r.retryAfterSeconds === null ? "" : ` · Retry-After ${r.retryAfterSeconds} s`;
  if (r.status === 201)
    return r.replayed ? { label: "201 replay", tone: "replay" } : { label: "201 paid", tone: "paid" };
  if (r.status === 409) return { label: `409 in progress${retryAfter}`, tone: "wait" };
  if (r.status === 503) return { label: `503${retryAfter}`, tone: "wait" };
  if (r.status === 402) return { label: r.replayed ? "402 replay" : "402 declined", tone: "error" };
  return { label: `${r.status}${r.error ? ` ${r.error}` : ""}`, tone: "error" };
}

function reachedBrowser(response: Extract<LabEvent, { type: "response" }>, own: readonly LabEvent[]): boolean {
  return !response.clientGone && !own.some((e) => e.type === "dropped");
}

function byPressThenAttempt(a: RequestBar, b: RequestBar): number {
  return a.press - b.press || a.attempt - b.attempt;
}
