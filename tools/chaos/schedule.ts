import type { FaultContext, FaultKind } from "./faults";
import type { Random } from "./random";

/**
 * The seeded fault schedule. Each round holds every enabled kind once, in a
 * drawn order; the rounds' injections are spread over the attempts, each at
 * a drawn attempt number. Faults are placed by attempt number rather than by
 * clock, so a run injects every kind `rounds` times whatever the machine's
 * speed, and the same seed gives the same sequence.
 */
export interface PlannedFault {
  /** Injected once this many attempts have started. */
  atAttempt: number;
  kind: FaultKind;
  /** How many times this is a second try of a kind that missed. */
  retry?: number;
}

export function planFaults(kinds: FaultKind[], rounds: number, attempts: number, random: Random): PlannedFault[] {
  const order = Array.from({ length: rounds }, () => random.shuffle(kinds)).flat();
  return order.map((kind, i) => ({
    // From 3 % to 90 % of the attempts, so the last faults still meet traffic.
    atAttempt: Math.floor(attempts * (0.03 + (0.87 * (i + random.next())) / order.length)),
    kind,
  }));
}

export interface FaultCount {
  injected: number;
  /** Armed, but never tripped by traffic (disarmed again): not counted as injected, and tried again once or twice. */
  missed: number;
}

/** A kind that missed (no traffic tripped it in time) is tried again this many times, a few attempts later. */
const RETRIES = 2;

export class Injector {
  private next = 0;
  private stopped = false;
  readonly counts = new Map<string, FaultCount>();

  constructor(
    private readonly plan: PlannedFault[],
    private readonly ctx: FaultContext,
    private readonly onError: (kind: string, err: unknown) => void,
  ) {
    for (const { kind } of plan) this.counts.set(kind.name, { injected: 0, missed: 0 });
  }

  get total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c.injected;
    return n;
  }

  /** Whether attempt number `n` may start: the faults planned well before it have been injected. */
  allows(n: number): boolean {
    const due = this.plan[this.next];
    return this.stopped || !due || due.atAttempt > n - 2;
  }

  async run(startedAttempts: () => number): Promise<void> {
    while (!this.stopped && this.next < this.plan.length) {
      const { atAttempt, kind } = this.plan[this.next]!;
      if (startedAttempts() < atAttempt) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      const count = this.counts.get(kind.name)!;
      let hit = false;
      try {
        hit = await kind.inject(this.ctx);
      } catch (err) {
        this.onError(kind.name, err);
      }
      if (hit) count.injected += 1;
      else count.missed += 1;
      const planned = this.plan[this.next]!;
      this.next += 1;
      if (!hit && (planned.retry ?? 0) < RETRIES) {
        this.plan.splice(this.next + 1, 0, { atAttempt: startedAttempts() + 3, kind, retry: (planned.retry ?? 0) + 1 });
      }
    }
  }

  stop(): void {
    this.stopped = true;
  }
}
