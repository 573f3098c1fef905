/**
 * A page's main-thread tasks at the CPU time they took, not the wall time.
 *
 * Lighthouse's simulation (Lantern) times each main-thread task of the
 * observed trace at its wall duration (`dur`) times the CPU slowdown: on a
 * busy host a task the scheduler pauses comes out longer than the page made
 * it, and TBT and LCP with it. Chrome also records each task's thread CPU
 * time (`tdur`), which a neighbour's load hardly moves. Each renderer main
 * thread's top-level task is shortened to its CPU time, and the events inside
 * it are moved and shortened in proportion, so they stay inside the task in
 * the same order.
 */
export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string } & Record<string, unknown>;
}

/** What the rewrite did: the main thread's top-level tasks, their wall time before and CPU time after (ms). */
export interface CpuTimeRewrite {
  tasks: number;
  wallMs: number;
  cpuMs: number;
}

/** The names Chrome gives a top-level task (the ones Lighthouse's simulation schedules). */
const TOP_LEVEL_TASKS = new Set(["RunTask", "ThreadControllerImpl::RunTask"]);

/** Rewrites `events` in place; returns what it did. */
export function tasksAtCpuTime(events: TraceEvent[]): CpuTimeRewrite {
  const mainThreads = new Set(
    events
      .filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain")
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const thread = `${e.pid}:${e.tid}`;
    if (e.ph === "M" || !mainThreads.has(thread)) continue;
    const list = byThread.get(thread) ?? [];
    list.push(e);
    byThread.set(thread, list);
  }
  let tasks = 0;
  let wallUs = 0;
  let cpuUs = 0;
  for (const thread of byThread.values()) {
    // Ties: the longer event first, so a task precedes the children that start with it.
    thread.sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    for (let i = 0; i < thread.length; i++) {
      const task = thread[i]!;
      if (!isTopLevelTask(task)) continue;
      const start = task.ts;
      const end = start + task.dur;
      const cpu = Math.min(task.tdur ?? task.dur, task.dur);
      tasks++;
      wallUs += task.dur;
      cpuUs += cpu;
      const scale = task.dur > 0 ? cpu / task.dur : 1;
      task.dur = cpu;
      for (let j = i + 1; j < thread.length && thread[j]!.ts < end; j++) {
        const child = thread[j]!;
        if (isTopLevelTask(child)) break;
        child.ts = start + (child.ts - start) * scale;
        if (child.dur !== undefined) child.dur *= scale;
      }
    }
  }
  return { tasks, wallMs: wallUs / 1000, cpuMs: cpuUs / 1000 };
}

function isTopLevelTask(e: TraceEvent): e is TraceEvent & { dur: number } {
  return e.ph === "X" && TOP_LEVEL_TASKS.has(e.name) && typeof e.dur === "number";
}
