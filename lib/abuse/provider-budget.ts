/**
 * How many calls this process starts at Stripe a second, and who may start
 * them (docs/decisions/0020-a-budget-a-few-cannot-drain.md). Stripe limits
 * requests per second per account, so a window of one second that slides
 * holds every budget here to its rate in any second, where a token bucket
 * would allow twice it across one.
 */

/** At most `limit` takings in any `windowMs`; a taking may be given back. */
export class SlidingWindow {
  /** When each taking of the current window happened, oldest first, from `head` on. */
  private taken: number[] = [];
  private head = 0;

  constructor(
    readonly limit: number,
    private readonly windowMs = 1000,
  ) {}

  /** Takes a place at `now`; false when the window is full. */
  take(now: number): boolean {
    if (this.used(now) >= this.limit) return false;
    // A clock that stepped back still appends in order: the window only ever ends later.
    this.taken.push(Math.max(now, this.taken.at(-1) ?? now));
    return true;
  }

  /** Places taken in the window ending at `now`. */
  used(now: number): number {
    while (this.head < this.taken.length && this.taken[this.head]! <= now - this.windowMs) this.head++;
    if (this.head > 1024 && this.head * 2 > this.taken.length) {
      this.taken = this.taken.slice(this.head);
      this.head = 0;
    }
    return this.taken.length - this.head;
  }

  /** How long from `now` until fewer than `below` places are used (0: they are). */
  waitMs(now: number, below = this.limit): number {
    if (this.used(now) < below) return 0;
    return this.taken[this.taken.length - below]! + this.windowMs - now;
  }

  /** Gives back the latest taking at or before `at` (a call that was never made). */
  giveBack(at: number): void {
    for (let i = this.taken.length - 1; i >= this.head; i--) {
      if (this.taken[i]! <= at) {
        this.taken.splice(i, 1);
        return;
      }
    }
  }
}

/** One unit of the shoppers' budget, held for a request until its call is made or given back. */
export interface Reservation {
  address: string;
  at: number;
}

export type Reserved = { ok: true; reservation: Reservation } | { ok: false; retryAfterSeconds: number };

/**
 * The shoppers' budget: `perSecond` calls in any second for the whole
 * process, shared fairly between client addresses:
 *
 * - the first half of the second's calls is open to every address, first
 *   come first served;
 * - the second half only to an address within its fair share: a token bucket
 *   whose rate is `perSecond / (2 × A)`, with A the addresses that asked in the
 *   last second or so (this one included), holding one second of it (at least
 *   one call), spent by every request the address makes, admitted or not
 *   (so asking beyond it keeps it out for about `OVER_SHARE_SECONDS`).
 *
 * So N addresses at their limits, however many and however in step, take at
 * most the first half, and a shopper within their share (the one who has not
 * asked for a while has a full bucket) still finds a place in the second.
 * A refusal costs nothing; a reservation whose call is never made is given back.
 */
export class ProviderBudget {
  private readonly window: SlidingWindow;
  private readonly buckets = new Map<string, Bucket>();
  /** The addresses that asked in this second and in the one before, for A. */
  private second = Number.NEGATIVE_INFINITY;
  private current = new Set<string>();
  private previous = new Set<string>();
  private active = 0;

  constructor(
    readonly perSecond: number,
    private readonly maxRemembered = 10_000,
  ) {
    this.window = new SlidingWindow(perSecond);
  }

  reserve(address: string, now = Date.now()): Reserved {
    const share = this.perSecond / (2 * this.markActive(address, now));
    const capacity = Math.max(1, share);
    const bucket = this.buckets.get(address);
    const tokens = bucket
      ? Math.min(capacity, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * share)
      : capacity;
    // Every request spends from its bucket, refused or not: a bucket counts what an address asks for.
    const within = tokens >= 1;
    this.remember(address, { tokens: Math.max(tokens - 1, -OVER_SHARE_SECONDS * share), at: now });
    const limit = within ? this.perSecond : Math.max(1, Math.floor(this.perSecond / 2));
    if (this.window.used(now) >= limit || !this.window.take(now))
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(this.window.waitMs(now, limit) / 1000)) };
    return { ok: true, reservation: { address, at: now } };
  }

  /**
   * The call `reservation` was for is not made: its unit goes back to the
   * process, not to its address. Replays and refusals still count against
   * the address's share: ten addresses that kept requests in flight that
   * never reach Stripe would otherwise stay "within their share" and hold
   * the whole second's budget between them.
   */
  giveBack(reservation: Reservation): void {
    this.window.giveBack(reservation.at);
  }

  /** Calls reserved in the second ending at `now` (metrics, tests). */
  used(now = Date.now()): number {
    return this.window.used(now);
  }

  /** Counts `address` as active at `now`; answers how many are (at least 1). */
  private markActive(address: string, now: number): number {
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      const next = second === this.second + 1;
      this.previous = next ? this.current : new Set();
      this.current = new Set();
      this.active = this.previous.size;
      this.second = second;
    }
    if (!this.current.has(address)) {
      if (!this.previous.has(address)) this.active += 1;
      // Past the bound an address still counts, unremembered: A only grows, shares only shrink.
      if (this.current.size < this.maxRemembered) this.current.add(address);
    }
    return Math.max(1, this.active);
  }

  private remember(address: string, bucket: Bucket): void {
    this.buckets.delete(address);
    if (this.buckets.size >= this.maxRemembered) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(address, bucket);
  }
}

/** An address that asked beyond its share keeps out of the second half for about this long after. */
export const OVER_SHARE_SECONDS = 10;

interface Bucket {
  /** Below 1: the address asked beyond its share (down to OVER_SHARE_SECONDS of it). */
  tokens: number;
  at: number;
}

/**
 * The budget of the shop's own calls (webhook retrieves, the reconciler's
 * searches, the events catch-up, the audit): `perSecond` in any second, apart
 * from the shoppers'. A call waits for its place rather than being refused
 * (nobody is waiting on it but the shop), at most `maxWaitMs`: past that the
 * caller treats it as a timeout, and tries again later as it does after one.
 */
export class BackgroundBudget {
  private readonly window: SlidingWindow;

  constructor(
    readonly perSecond: number,
    private readonly clock: { now(): number; sleep(ms: number): Promise<void> },
  ) {
    this.window = new SlidingWindow(perSecond);
  }

  /** Waits for a place; answers how long it waited, or null when none came within `maxWaitMs`. */
  async take(maxWaitMs: number): Promise<number | null> {
    const started = this.clock.now();
    for (;;) {
      const now = this.clock.now();
      if (this.window.take(now)) return now - started;
      const wait = this.window.waitMs(now);
      if (now - started + wait > maxWaitMs) return null;
      await this.clock.sleep(Math.max(1, wait));
    }
  }
}

/**
 * This process's budget of the shop's own calls, one for every client that
 * draws on it (the webhook's, the maintenance loop's, the audit's): `pace`
 * for createStripeClient.
 */
export function backgroundPace(perSecond: number): (maxWaitMs: number) => Promise<number | null> {
  const global = globalThis as unknown as { checkoutBackgroundBudget?: BackgroundBudget };
  if (global.checkoutBackgroundBudget?.perSecond !== perSecond)
    global.checkoutBackgroundBudget = new BackgroundBudget(perSecond, {
      now: () => Date.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
  const budget = global.checkoutBackgroundBudget;
  return (maxWaitMs) => budget.take(maxWaitMs);
}
