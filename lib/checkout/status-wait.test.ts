import { describe, expect, it } from "vitest";
import { readUntilChanged, requestedWaitMs, STATUS_WAIT_MAX_MS, stillRunning } from "./status-wait";

type State = { status: string; response?: unknown };

describe("the status endpoint's wait", () => {
  it("re-reads a running attempt until its outcome is recorded, then answers at once", async () => {
    const states: State[] = [
      { status: "in_progress" },
      { status: "in_progress" },
      { status: "completed", response: {} },
    ];
    let reads = 0;
    const state = await readUntilChanged(async () => states[Math.min(reads++, states.length - 1)]!, {
      waitMs: 4_000,
      intervalMs: 1,
    });
    expect(state).toEqual({ status: "completed", response: {} });
    expect(reads).toBe(3);
  });

  it("answers at once for a state that is not running, and after one read without a wait", async () => {
    let reads = 0;
    const waiting = { status: "in_progress", response: { statusCode: 202 } };
    expect(await readUntilChanged(async () => (reads++, waiting), { waitMs: 4_000, intervalMs: 1 })).toBe(waiting);
    expect(await readUntilChanged(async () => (reads++, { status: "in_progress" }), { waitMs: 0 })).toEqual({
      status: "in_progress",
    });
    expect(reads).toBe(2);
    expect(stillRunning(null)).toBe(false);
    // Parked for the shopper (nobody holds it) is an answer; held while a 3-D Secure return settles it is not.
    expect(stillRunning({ status: "in_progress", response: {}, owned: false })).toBe(false);
    expect(stillRunning({ status: "in_progress", response: {}, owned: true })).toBe(true);
  });

  it("stops re-reading when the request is aborted", async () => {
    const aborted = AbortSignal.abort();
    let reads = 0;
    await readUntilChanged(async () => (reads++, { status: "in_progress" }), {
      waitMs: 4_000,
      intervalMs: 1,
      signal: aborted,
    });
    expect(reads).toBe(1);
  });

  it("takes only a whole number of ms as the wait, capped", () => {
    expect(requestedWaitMs(null)).toBe(0);
    expect(requestedWaitMs("abc")).toBe(0);
    expect(requestedWaitMs("-5")).toBe(0);
    expect(requestedWaitMs("250")).toBe(250);
    expect(requestedWaitMs("999999")).toBe(STATUS_WAIT_MAX_MS);
  });
});
