/**
 * What an account does after it answered: a refund that settles (or fails)
 * later, as the card network answers Stripe. Dropped, never run, once the
 * account is reset or the emulator closes.
 */
export class Later {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  run(afterMs: number, work: () => void): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) work();
    }, afterMs);
    this.timers.add(timer);
  }

  /** Work scheduled and not yet run. */
  get pending(): number {
    return this.timers.size;
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
