import { CheckoutGate, type CheckoutLimits } from "@/lib/abuse/checkout-gate";

/**
 * Abusive addresses and one honest shopper against the checkout's gate, on
 * a clock of its own (the gate takes `now`): every request asks the gate's
 * admission, as `POST /api/checkout` does before its claim, and an admitted
 * one keeps its unit of the provider budget (a fresh key goes to Stripe).
 * Seconds of traffic in milliseconds of CPU, the same figures every run.
 */
export interface AbuseTraffic {
  /** Abusive addresses, each sending a fresh key every `abuserEveryMs` (as fast as it likes: a refusal costs it nothing). */
  abusers: number;
  abuserEveryMs: number;
  /** The honest shopper sends a fresh key every `honestEveryMs`, from an address of its own. */
  honestEveryMs: number;
  honestKeys: number;
  /** The provider budget (PROVIDER_FRESH_ATTEMPTS_PER_SECOND). */
  perSecond: number;
}

export interface AbuseOutcome {
  honestAdmitted: number;
  honestKeys: number;
  /** Share of the honest shopper's fresh keys admitted, 0-1. */
  honestShare: number;
  abuserAdmitted: number;
  /** The most fresh keys admitted in any one second (a window sliding over the run). */
  maxPerSecond: number;
}

/** A gate as the app builds one, with limits that never refuse, except the provider budget under test. */
export function gateWithBudget(perSecond: number): CheckoutGate {
  return new CheckoutGate(limitsWithBudget(perSecond));
}

export function limitsWithBudget(perSecond: number): CheckoutLimits {
  return {
    perAddress: 1_000_000,
    perSession: 1_000_000,
    maxOpenAttempts: 1_000_000,
    windowSeconds: 60,
    declinesPerSession: 1_000_000,
    declinesPerAddress: 1_000_000,
    declinesPerCard: 1_000_000,
    declineWindowSeconds: 3600,
    providerPerSecond: perSecond,
    providerBreakerSeconds: 5,
  };
}

export function simulateAbuse(
  traffic: AbuseTraffic,
  gate: CheckoutGate = gateWithBudget(traffic.perSecond),
): AbuseOutcome {
  const start = 1_700_000_000_000;
  const end = start + traffic.honestKeys * traffic.honestEveryMs;
  const random = seeded(traffic.abusers * 7919 + traffic.perSecond);
  // [time, who]: who -1 is the honest shopper; abusers start at random phases.
  const requests: Array<[number, number]> = [];
  // Each at its own pace about the mean (half to one and a half times it): nobody is in step by chance.
  const next = (mean: number) => mean * (0.5 + random());
  for (let abuser = 0; abuser < traffic.abusers; abuser++)
    for (let at = start + random() * traffic.abuserEveryMs; at < end; at += next(traffic.abuserEveryMs))
      requests.push([Math.floor(at), abuser]);
  // The honest shopper arrives once the abusers are at it.
  for (let key = 0; key < traffic.honestKeys; key++)
    requests.push([Math.floor(start + (key + 0.5) * traffic.honestEveryMs + (random() - 0.5) * 1000), -1]);
  requests.sort((a, b) => a[0] - b[0] || a[1] - b[1]);

  let honestAdmitted = 0;
  let abuserAdmitted = 0;
  const admittedAt: number[] = [];
  for (const [at, who] of requests) {
    const address = who < 0 ? "192.0.2.1" : `198.51.100.${who % 250}-${who}`;
    const admission = gate.admission(who < 0 ? "honest" : `abuser-${who}`, address, at);
    if (admission.admit !== true) continue;
    admittedAt.push(at);
    if (who < 0) honestAdmitted++;
    else abuserAdmitted++;
  }
  return {
    honestAdmitted,
    honestKeys: traffic.honestKeys,
    honestShare: honestAdmitted / traffic.honestKeys,
    abuserAdmitted,
    maxPerSecond: maxInAnySecond(admittedAt),
  };
}

/** The most of `times` (ms, sorted) in any window of 1000 ms. */
export function maxInAnySecond(times: number[]): number {
  let most = 0;
  for (let last = 0, first = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= 1000) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** A small deterministic generator (mulberry32): the same phases every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
