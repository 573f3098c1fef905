import type { Admission, AdmissionRule } from "./admission";
import { ProviderBudget, type Reservation } from "./provider-budget";

/**
 * Whether a checkout request may start a new attempt (docs/contract.md §10,
 * docs/decisions/0013-the-gate-in-the-claim.md). The limits are counted and
 * checked by the claim's own statement (the gate of admission.ts), so a
 * fresh checkout pays no round trip for them and a known key (a duplicate, a
 * reload) is never limited. This process remembers a bucket it saw spent
 * until its window ends: meanwhile the claim only reads (a known key is
 * still answered) and a fresh key is refused without a write.
 *
 * The provider budget (docs/decisions/0020-a-budget-a-few-cannot-drain.md)
 * is reserved here, before the claim, for the call a fresh key or a retake
 * would make, at once and within each address's fair share; the request
 * gives it back when it makes no call after all.
 */
export interface CheckoutLimits extends Omit<Admission, "address" | "admit" | "card" | "retake"> {
  /** Calls to the provider this process starts for shoppers in any second (lib/abuse/provider-budget.ts). */
  providerPerSecond: number;
  /** How long fresh attempts are shed after the provider answered 429. */
  providerBreakerSeconds: number;
}

/** An admission holding a unit of the provider budget, if it got one. */
export interface GateAdmission extends Admission {
  /** The request made no provider call (refused, replayed, a known key answered): the unit goes back. Once. */
  giveBack(): void;
}

export class CheckoutGate {
  /** `${rule} ${bucket}` → until when (ms) this process refuses fresh keys of it. Bounded, oldest out first. */
  private readonly spent = new Map<string, number>();
  private readonly budget: ProviderBudget;
  private busyUntil = 0;

  constructor(
    private readonly limits: CheckoutLimits,
    private readonly maxRemembered = 10_000,
  ) {
    this.budget = new ProviderBudget(limits.providerPerSecond, maxRemembered);
  }

  /**
   * What the claim of `customerId`'s request from `address` must check, with
   * a unit of the provider budget reserved for the call it may make: a fresh
   * key is admitted, and a known key whose attempt must be asked again
   * retaken, only with one.
   */
  admission(customerId: string, address: string, now = Date.now()): GateAdmission {
    const { providerPerSecond: _rate, providerBreakerSeconds: _breaker, ...limits } = this.limits;
    const base = { address, ...limits };
    // The provider is shedding load: fresh attempts and retakes wait, known keys are still answered from the claim.
    if (now < this.busyUntil) {
      const busy = { blockedBy: "provider_busy" as const, retryAfterSeconds: Math.ceil((this.busyUntil - now) / 1000) };
      return { ...base, admit: busy, retake: busy, giveBack: () => undefined };
    }
    const blocked = this.spentBucket(customerId, address, now);
    const reserved = this.budget.reserve(address, now);
    if (!reserved.ok) {
      const spent = { blockedBy: "provider_budget" as const, retryAfterSeconds: reserved.retryAfterSeconds };
      return { ...base, admit: blocked ?? spent, retake: spent, giveBack: () => undefined };
    }
    return { ...base, admit: blocked ?? true, retake: true, giveBack: this.once(reserved.reservation) };
  }

  /** Another call to the provider before a claim (a card's lookup): one unit of `address`'s budget, false if none is left. */
  spend(address: string, now = Date.now()): boolean {
    return this.budget.reserve(address, now).ok;
  }

  /** The provider answered 429: shed fresh attempts for a while (not at all with a breaker of 0 s). */
  providerBusy(now = Date.now()): void {
    this.busyUntil = Math.max(this.busyUntil, now + this.limits.providerBreakerSeconds * 1000);
  }

  /** Units of the provider budget reserved in the second ending at `now`. */
  providerCalls(now = Date.now()): number {
    return this.budget.used(now);
  }

  /** Remembers a refusal: a spent bucket stays spent until its window ends (open attempts change sooner). */
  refused(customerId: string, address: string, rule: AdmissionRule, retryAfterSeconds: number, now = Date.now()): void {
    if (rule !== "checkout_per_address" && rule !== "checkout_per_session") return;
    const key = `${rule} ${rule === "checkout_per_address" ? address : customerId}`;
    this.spent.delete(key);
    if (this.spent.size >= this.maxRemembered) this.spent.delete(this.spent.keys().next().value!);
    this.spent.set(key, now + retryAfterSeconds * 1000);
  }

  private spentBucket(customerId: string, address: string, now: number): Exclude<Admission["admit"], true> | null {
    for (const [rule, bucket] of [
      ["checkout_per_address", address],
      ["checkout_per_session", customerId],
    ] as const) {
      const until = this.spent.get(`${rule} ${bucket}`);
      if (until === undefined) continue;
      if (until > now) return { blockedBy: rule, retryAfterSeconds: Math.ceil((until - now) / 1000) };
      this.spent.delete(`${rule} ${bucket}`);
    }
    return null;
  }

  private once(reservation: Reservation): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.budget.giveBack(reservation);
    };
  }
}
