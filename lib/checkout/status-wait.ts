/**
 * `GET /api/checkout/{key}?wait=<ms>`: the status endpoint may hold its answer
 * while the attempt is still running, so a page learns the outcome within one
 * re-read of the shop recording it instead of after its next backoff. Each
 * re-read is one short select with the connection back in the pool between
 * reads: no request holds a lock or a connection while it waits.
 */

/** The longest a status request waits: under the browser's try timeout, so a wait never looks like a lost connection. */
export const STATUS_WAIT_MAX_MS = 4_000;
/** How often a waiting request re-reads the attempt: the most a recorded outcome can wait to be seen by it. */
export const STATUS_WAIT_INTERVAL_MS = 150;

/**
 * A state still worth waiting on: the attempt runs with nothing stored for the
 * shopper yet, or someone holds it right now (a 3-D Secure return settling
 * it); one parked for the shopper, owned by nobody, is answered at once.
 */
export function stillRunning(state: { status: string; response?: unknown; owned?: boolean } | null): boolean {
  return state !== null && state.status === "in_progress" && (state.response === undefined || state.owned === true);
}

/** The wait a request asked for, in ms: 0 (answer at once) unless `wait` is a whole number, capped. */
export function requestedWaitMs(value: string | null): number {
  if (value === null || !/^\d{1,6}$/.test(value)) return 0;
  return Math.min(Number(value), STATUS_WAIT_MAX_MS);
}

/**
 * Reads the attempt until it stops running, `waitMs` passes, or `signal`
 * aborts (the page went away); returns the last state read.
 */
export async function readUntilChanged<S extends { status: string; response?: unknown; owned?: boolean }>(
  read: () => Promise<S | null>,
  {
    waitMs,
    intervalMs = STATUS_WAIT_INTERVAL_MS,
    signal,
  }: { waitMs: number; intervalMs?: number; signal?: AbortSignal },
): Promise<S | null> {
  const until = performance.now() + waitMs;
  let state = await read();
  while (stillRunning(state) && performance.now() + intervalMs <= until && !signal?.aborted) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    state = await read();
  }
  return state;
}
