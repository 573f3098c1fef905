import autocannon from "autocannon";
import { cpuDuring, type CpuMeters } from "./cpu";
import { Recorder, type Measure } from "./measure";
import { sleep } from "@/lib/sleep";

/**
 * One HTTP load with autocannon (closed loop: `connections` requests in
 * flight, each connection sending its next request when the previous one is
 * answered). Latencies are taken from autocannon's response events at
 * microsecond resolution (its own histogram rounds to whole milliseconds).
 * Each connection's first answer is recorded apart (`Measure.openings`):
 * p50, p99 and max are of the answers on open connections, as a shopper's
 * duplicates and a browser's keep-alive requests arrive.
 */
export interface LoadOptions {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  /** Headers computed per request, e.g. a fresh Idempotency-Key. */
  perRequest?: () => Record<string, string>;
  /** The body computed per request (e.g. a fresh ConfirmationToken's), instead of `body`. */
  bodyPerRequest?: () => string;
  /** Runs before the load for `seconds` starts, outside its timing and CPU (e.g. making tokens). */
  prepare?: (seconds: number) => Promise<void>;
  /** Adds to this recorder (several rounds, one measure) instead of a new one. */
  recorder?: Recorder;
  cpu?: CpuMeters;
}

export async function httpLoad(options: LoadOptions): Promise<Measure> {
  const recorder = options.recorder ?? new Recorder();
  const { perRequest, bodyPerRequest } = options;
  const run = () =>
    new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url: options.url,
          method: options.method ?? "GET",
          headers: options.headers ?? {},
          ...(options.body === undefined ? {} : { body: options.body }),
          connections: options.connections,
          duration: options.seconds,
          ...(perRequest || bodyPerRequest
            ? {
                requests: [
                  {
                    setupRequest: (request) => ({
                      ...request,
                      headers: { ...request.headers, ...perRequest?.() },
                      ...(bodyPerRequest ? { body: bodyPerRequest() } : {}),
                    }),
                  },
                ],
              }
            : {}),
        },
        (err: unknown, result) => (err ? reject(err) : resolve(result)),
      );
      const opened = new WeakSet<object>();
      instance.on("response", (client, statusCode, _bytes, ms) => {
        recorder.record(ms, String(statusCode), !opened.has(client));
        opened.add(client);
      });
    });
  await options.prepare?.(options.seconds);
  const before = recorder.measure().count;
  // CPU is read once the server has also finished the requests cut off at the end.
  const { result, cpuMs } = await cpuDuring(options.cpu ?? {}, async () => {
    const result = await run();
    await drained(options.cpu);
    return result;
  });
  recorder.elapsed += result.duration;
  recorder.addCpu(cpuMs);
  recorder.abandoned += Math.max(0, result.requests.sent - (recorder.measure().count - before));
  if (result.errors > 0) recorder.outcomes.errors = (recorder.outcomes.errors ?? 0) + result.errors;
  return recorder.measure();
}

/** Waits until the app stops burning CPU (at most 10 s), or half a second without a meter. */
async function drained(cpu: CpuMeters | undefined): Promise<void> {
  const app = cpu?.app;
  if (!app) return sleep(500);
  const deadline = Date.now() + 10_000;
  let last = app();
  while (Date.now() < deadline) {
    await sleep(100);
    const now = app();
    if (now - last <= 10) return;
    last = now;
  }
}

/** Answers with a status other than `expected` (including connection errors). */
export function unexpected(measure: Measure, expected: number): number {
  return Object.entries(measure.outcomes).reduce((sum, [status, n]) => sum + (status === String(expected) ? 0 : n), 0);
}

/**
 * Loads `a` and `b` in alternating rounds (a, b, a, b…) after a warm-up of
 * each, so that other work on the machine weighs on both measures alike.
 */
export async function alternate(
  a: Omit<LoadOptions, "seconds">,
  b: Omit<LoadOptions, "seconds">,
  timing: { rounds: number; loadSeconds: number; warmupSeconds: number },
): Promise<[Measure, Measure]> {
  await httpLoad({ ...a, seconds: timing.warmupSeconds });
  await httpLoad({ ...b, seconds: timing.warmupSeconds });
  const [ra, rb] = [new Recorder(), new Recorder()];
  const seconds = Math.max(1, Math.round(timing.loadSeconds / timing.rounds));
  for (let round = 0; round < timing.rounds; round++) {
    await httpLoad({ ...a, seconds, recorder: ra });
    await httpLoad({ ...b, seconds, recorder: rb });
  }
  return [ra.measure(), rb.measure()];
}
