import { describe, expect, it } from "vitest";
import { tasksAtCpuTime, type TraceEvent } from "./cpu-time";

const MAIN = { pid: 1, tid: 7 };
const event = (e: Partial<TraceEvent> & { name: string; ts: number }): TraceEvent => ({ ph: "X", ...MAIN, ...e });
const trace = (): TraceEvent[] => [
  { name: "thread_name", ph: "M", ...MAIN, ts: 0, args: { name: "CrRendererMain" } },
  { name: "thread_name", ph: "M", pid: 1, tid: 9, ts: 0, args: { name: "Compositor" } },
  // A task the scheduler paused: 400 µs on the wall, 100 µs of CPU, with a script inside it.
  event({ name: "RunTask", ts: 1_000, dur: 400, tdur: 100 }),
  event({ name: "EvaluateScript", ts: 1_200, dur: 200 }),
  event({ name: "largestContentfulPaint::Candidate", ph: "I", ts: 1_300 }),
  // The next task, unpaused, and one on another thread, paused but not the page's main thread.
  event({ name: "RunTask", ts: 1_500, dur: 50, tdur: 50 }),
  { name: "RunTask", ph: "X", pid: 1, tid: 9, ts: 1_000, dur: 400, tdur: 100 },
];

describe("tasks at their CPU time", () => {
  it("shortens the main thread's paused task to its CPU time, its events in proportion", () => {
    const events = trace();
    expect(tasksAtCpuTime(events)).toEqual({ tasks: 2, wallMs: 0.45, cpuMs: 0.15 });
    const at = (i: number) => ({ ts: events[i]!.ts, dur: events[i]!.dur });
    expect(at(2)).toEqual({ ts: 1_000, dur: 100 });
    expect(at(3)).toEqual({ ts: 1_050, dur: 50 });
    expect(at(4)).toEqual({ ts: 1_075, dur: undefined });
    expect(at(5)).toEqual({ ts: 1_500, dur: 50 });
  });

  it("leaves other threads, and tasks without a CPU time, as they were", () => {
    const events = trace();
    delete events[2]!.tdur;
    tasksAtCpuTime(events);
    expect(events[2]!.dur).toBe(400);
    expect(events[3]!.ts).toBe(1_200);
    expect(events[6]!.dur).toBe(400);
  });
});
