import { createHistogram, type RecordableHistogram } from "node:perf_hooks";
import { cpuDuring, type CpuMeters } from "./cpu";

/**
 * Latency and throughput of one load. Percentiles come from an HDR histogram
 * (Node's `perf_hooks.createHistogram`) recorded in microseconds.
 */
export interface Measure {
  /** Every answer, the connections' first ones included: the throughput's count. */
  count: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /**
   * HTTP loads: each connection's first answer, apart from p50/p99/max. A
   * loaded Node.js server accepts new connections slowly (docs/performance.md),
   * whatever the route: in these the connection's opening is measured, not the route.
   */
  openings?: { count: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** Responses by status code (HTTP loads), or "ok"/"error" (in-process loads). */
  outcomes: Record<string, number>;
  /** CPU milliseconds per operation spent by the app, PostgreSQL and this process (see cpu.ts). */
  cpuMsPerOp: Record<string, number>;
}

export class Recorder {
  private readonly histogram: RecordableHistogram = createHistogram();
  private readonly openings: RecordableHistogram = createHistogram();
  readonly outcomes: Record<string, number> = {};
  /** Seconds spent loading, summed over the runs recorded here. */
  elapsed = 0;
  readonly cpuMs: Record<string, number> = {};
  /** Requests the server worked on without an answer being counted (cut off when a timed load ended). */
  abandoned = 0;

  /** Runs `work`, adding its duration and the CPU it cost (when meters are given). */
  async time<T>(cpu: CpuMeters | undefined, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const { result, cpuMs } = await cpuDuring(cpu ?? {}, work);
    this.elapsed += (performance.now() - started) / 1000;
    this.addCpu(cpuMs);
    return result;
  }

  addCpu(cpuMs: Record<string, number>): void {
    for (const [name, ms] of Object.entries(cpuMs)) this.cpuMs[name] = (this.cpuMs[name] ?? 0) + ms;
  }

  /** `opening`: the first answer on its connection (HTTP loads), kept out of the percentiles. */
  record(ms: number, outcome: string, opening = false): void {
    (opening ? this.openings : this.histogram).record(Math.max(1, Math.round(ms * 1000)));
    this.outcomes[outcome] = (this.outcomes[outcome] ?? 0) + 1;
  }

  measure(): Measure {
    const h = this.histogram;
    const seconds = this.elapsed;
    const count = h.count + this.openings.count;
    const ms = (us: number) => Math.round(us) / 1000;
    const percentiles = (h: RecordableHistogram) => ({
      p50Ms: h.count ? ms(h.percentile(50)) : 0,
      p99Ms: h.count ? ms(h.percentile(99)) : 0,
      maxMs: h.count ? ms(h.max) : 0,
    });
    return {
      count,
      seconds: Math.round(seconds * 100) / 100,
      perSecond: Math.round((count / seconds) * 10) / 10,
      ...percentiles(h),
      ...(this.openings.count ? { openings: { count: this.openings.count, ...percentiles(this.openings) } } : {}),
      outcomes: this.outcomes,
      cpuMsPerOp: Object.fromEntries(
        Object.entries(this.cpuMs).map(([name, total]) => [
          name,
          count ? Math.round((total / (count + this.abandoned)) * 1000) / 1000 : 0,
        ]),
      ),
    };
  }
}

/**
 * Runs `task(i)` from `concurrency` workers until `count` tasks ran or
 * `until` resolves (whichever is given), timing each one. A failed task is a
 * broken benchmark, not a data point: the first error is rethrown at the end.
 * Pass a `recorder` to add several runs (e.g. interleaved rounds) into one measure.
 */
export async function runConcurrent(
  options: { concurrency: number; count?: number; until?: Promise<unknown>; recorder?: Recorder; cpu?: CpuMeters },
  task: (i: number) => Promise<unknown>,
): Promise<Measure> {
  const recorder = options.recorder ?? new Recorder();
  let next = 0;
  let stopped = false;
  let failure: unknown;
  void options.until?.then(
    () => (stopped = true),
    () => (stopped = true),
  );
  const more = () => !stopped && (options.count === undefined || next < options.count);
  const worker = async () => {
    while (more()) {
      const i = next++;
      const t0 = performance.now();
      const outcome = await task(i).then(
        () => "ok",
        (err: unknown) => ((failure ??= err), "error"),
      );
      recorder.record(performance.now() - t0, outcome);
    }
  };
  await recorder.time(options.cpu, () => Promise.all(Array.from({ length: options.concurrency }, worker)));
  if (failure) throw failure;
  return recorder.measure();
}
