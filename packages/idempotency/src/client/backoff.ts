/**
 * When to retry an idempotent request, as one pure function. Exponential
 * backoff with full jitter: the wait before retry n is uniform between a
 * floor and a ceiling that doubles per retry, so many clients retrying after
 * one outage spread out instead of arriving together.
 */
export const BACKOFF = {
  /** No retry sooner than this: a duplicate answered in milliseconds needs no faster polling. */
  floorMs: 300,
  /** Ceiling of the first wait; it doubles per retry… */
  firstCeilingMs: 1_500,
  factor: 2,
  /** …up to this, so a long outage is still polled every few seconds. */
  capMs: 8_000,
  /** After this much time since the first try, stop and ask the server what happened. */
  budgetMs: 60_000,
} as const;

/** The upper bound of the wait before retry `retry` (1-based): 1.5 s, 3 s, 6 s, 8 s, 8 s… */
export function ceilingMs(retry: number): number {
  return Math.min(BACKOFF.capMs, BACKOFF.firstCeilingMs * BACKOFF.factor ** Math.max(0, retry - 1));
}

export interface RetryInput {
  /** 1 for the first retry. */
  retry: number;
  /** Time since the first try. */
  elapsedMs: number;
  /** The server's Retry-After, if it sent one: waiting less would only earn another 409. */
  retryAfterMs?: number | undefined;
  /** Uniform in [0, 1); injectable so tests can pin the jitter. */
  random: () => number;
}

/** The wait before the next retry in ms, or null to give up because the wait would end past the budget. */
export function nextRetryDelay({ retry, elapsedMs, retryAfterMs = 0, random }: RetryInput): number | null {
  const jittered = BACKOFF.floorMs + random() * (ceilingMs(retry) - BACKOFF.floorMs);
  const delay = Math.round(Math.max(jittered, retryAfterMs));
  return elapsedMs + delay > BACKOFF.budgetMs ? null : delay;
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
