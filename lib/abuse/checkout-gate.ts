import type { Admission, AdmissionRule } from "../idempotency/types";

/**
 * Whether a checkout request may start a new attempt (docs/contract.md §10,
 * docs/decisions/0013-the-gate-in-the-claim.md). The limits are counted and
 * checked by the claim's own statement (lib/idempotency/engine.ts), so a
 * fresh checkout pays no round trip for them and a known key (a retry, a
 * duplicate, a reload) is never limited. This process remembers a bucket it
 * saw spent until its window ends: meanwhile the claim only reads (a known
 * key is still answered) and a fresh key is refused without a write.
 */
export interface CheckoutLimits extends Omit<Admission, "address" | "admit" | "card"> {
  /** Fresh attempts this process sends the provider per second (a token bucket holding one second's worth). */
  providerPerSecond: number;
  /** How long fresh attempts are shed after the provider answered 429. */
  providerBreakerSeconds: number;
}

export class CheckoutGate {
  /** `${rule} ${bucket}` → until when (ms) this process refuses fresh keys of it. Bounded, oldest out first. */
  private readonly spent = new Map<string, number>();
  private tokens: number;
  private refilledAt = 0;
  private busyUntil = 0;

  constructor(
    private readonly limits: CheckoutLimits,
    private readonly maxRemembered = 10_000,
  ) {
    this.tokens = limits.providerPerSecond;
  }

  /** What the claim of `customerId`'s request from `address` must check. */
  admission(customerId: string, address: string, now = Date.now()): Admission {
    const { providerPerSecond: _rate, providerBreakerSeconds: _breaker, ...limits } = this.limits;
    const base = { address, ...limits };
    // The provider is shedding load: fresh attempts wait, known keys are still answered from the claim.
    if (now < this.busyUntil)
      return {
        ...base,
        admit: { blockedBy: "provider_busy", retryAfterSeconds: Math.ceil((this.busyUntil - now) / 1000) },
      };
    this.refill(now);
    if (this.tokens < 1) return { ...base, admit: { blockedBy: "provider_budget", retryAfterSeconds: 1 } };
    for (const [rule, bucket] of [
      ["checkout_per_address", address],
      ["checkout_per_session", customerId],
    ] as const) {
      const until = this.spent.get(`${rule} ${bucket}`);
      if (until === undefined) continue;
      if (until > now)
        return { ...base, admit: { blockedBy: rule, retryAfterSeconds: Math.ceil((until - now) / 1000) } };
      this.spent.delete(`${rule} ${bucket}`);
    }
    return { ...base, admit: true };
  }

  /** Another call to the provider before a claim (a card's lookup): one unit of the budget, false if none is left. */
  spend(now = Date.now()): boolean {
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** A fresh attempt was claimed and goes to the provider: it spends one unit of the budget. */
  started(now = Date.now()): void {
    this.refill(now);
    this.tokens -= 1;
  }

  /** The provider answered 429: shed fresh attempts for a while (not at all with a breaker of 0 s). */
  providerBusy(now = Date.now()): void {
    this.busyUntil = Math.max(this.busyUntil, now + this.limits.providerBreakerSeconds * 1000);
  }

  private refill(now: number): void {
    const rate = this.limits.providerPerSecond;
    this.tokens = Math.min(rate, this.tokens + (Math.max(0, now - this.refilledAt) / 1000) * rate);
    this.refilledAt = now;
  }

  /** Remembers a refusal: a spent bucket stays spent until its window ends (open attempts change sooner). */
  refused(customerId: string, address: string, rule: AdmissionRule, retryAfterSeconds: number, now = Date.now()): void {
    if (rule !== "checkout_per_address" && rule !== "checkout_per_session") return;
    const key = `${rule} ${rule === "checkout_per_address" ? address : customerId}`;
    this.spent.delete(key);
    if (this.spent.size >= this.maxRemembered) this.spent.delete(this.spent.keys().next().value!);
    this.spent.set(key, now + retryAfterSeconds * 1000);
  }
}
