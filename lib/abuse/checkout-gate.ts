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
export interface CheckoutLimits {
  perAddress: number;
  perSession: number;
  maxOpenAttempts: number;
  windowSeconds: number;
}

export class CheckoutGate {
  /** `${rule} ${bucket}` → until when (ms) this process refuses fresh keys of it. Bounded, oldest out first. */
  private readonly spent = new Map<string, number>();

  constructor(
    private readonly limits: CheckoutLimits,
    private readonly maxRemembered = 10_000,
  ) {}

  /** What the claim of `customerId`'s request from `address` must check. */
  admission(customerId: string, address: string, now = Date.now()): Admission {
    const base = { address, ...this.limits };
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

  /** Remembers a refusal: a spent bucket stays spent until its window ends (open attempts change sooner). */
  refused(customerId: string, address: string, rule: AdmissionRule, retryAfterSeconds: number, now = Date.now()): void {
    if (rule === "open_attempts") return;
    const key = `${rule} ${rule === "checkout_per_address" ? address : customerId}`;
    this.spent.delete(key);
    if (this.spent.size >= this.maxRemembered) this.spent.delete(this.spent.keys().next().value!);
    this.spent.set(key, now + retryAfterSeconds * 1000);
  }
}
