import type { Admission } from "./admission";
import { isStripeError } from "../payments/stripe-errors";

/** How long a fresh checkout whose card Stripe could not name waits before asking again. */
export const CARD_UNKNOWN_RETRY_AFTER_SECONDS = 2;

/**
 * The card a fresh checkout would pay with, for the claim's per-card count of
 * declines (docs/decisions/0016-declines-per-card.md). Looked up only when the
 * claim may admit a fresh key (otherwise it only reads and the card does not
 * matter) and the key is not already known (a retry, a duplicate, a replay
 * with another body: the claim answers it whatever the card), and
 * remembered per credential, so a duplicate of a request this process has
 * seen costs no provider call. A lookup is a Stripe call like a fresh
 * attempt's: it spends a unit of the provider budget, and a session or an
 * address makes no more of them in a window than it may start fresh
 * attempts there, so made-up credentials cannot turn the checkout into a
 * stream of Stripe reads. Bounded, oldest out first.
 */
export class CardCheck {
  private readonly known = new Map<string, string | null>();
  /** Lookups per session and per address in the current window of the checkout limits. */
  private readonly lookups = new Map<string, { window: number; count: number }>();

  /** `lookup` null: cards are not counted, and never looked up. */
  constructor(
    private readonly lookup: ((credential: string) => Promise<string | null>) | null,
    private readonly maxRemembered = 10_000,
  ) {}

  /**
   * `admission` with its card. When Stripe cannot say which card it is, a
   * fresh key is refused (`provider_busy`: nothing is charged, the same key is
   * safe to retry) and a known key is still answered by the claim;
   * `providerBusy` says Stripe answered 429. `request.known` says whether the
   * key already has a record; `request.spend` takes a unit of the provider
   * budget (false: none left).
   */
  async admit(
    admission: Admission,
    credential: string,
    request: { subject: string; known: () => Promise<boolean>; spend: () => boolean },
    now = Date.now(),
  ): Promise<{ admission: Admission; providerBusy: boolean }> {
    if (!this.lookup || admission.admit !== true) return { admission, providerBusy: false };
    if (this.known.has(credential))
      return { admission: { ...admission, card: this.known.get(credential) ?? null }, providerBusy: false };
    if (await request.known()) return { admission, providerBusy: false };
    const refusal = this.overLookups(request.subject, admission, now) ?? (request.spend() ? null : BUDGET_SPENT);
    if (refusal) return { admission: { ...admission, admit: refusal }, providerBusy: false };
    this.countLookup(request.subject, admission, now);
    try {
      const card = await this.lookup(credential);
      this.remember(this.known, credential, card);
      return { admission: { ...admission, card }, providerBusy: false };
    } catch (err) {
      return {
        admission: {
          ...admission,
          admit: { blockedBy: "provider_busy", retryAfterSeconds: CARD_UNKNOWN_RETRY_AFTER_SECONDS },
        },
        providerBusy: isStripeError(err) && err.statusCode === 429,
      };
    }
  }

  /**
   * A refusal when `subject` or its address has made as many lookups in this
   * window as it may start fresh attempts there (sessions are cheap: the
   * address's count is what holds one client to its share), else null.
   */
  private overLookups(subject: string, admission: Admission, now: number): Blocked | null {
    const window = Math.floor(now / 1000 / admission.windowSeconds);
    for (const [bucket, limit, rule] of [
      [`session ${subject}`, admission.perSession, "checkout_per_session"],
      [`address ${admission.address}`, admission.perAddress, "checkout_per_address"],
    ] as const) {
      const seen = this.lookups.get(bucket);
      if (seen?.window === window && seen.count >= limit)
        return {
          blockedBy: rule,
          retryAfterSeconds: Math.max(1, Math.ceil((window + 1) * admission.windowSeconds - now / 1000)),
        };
    }
    return null;
  }

  private countLookup(subject: string, admission: Admission, now: number): void {
    const window = Math.floor(now / 1000 / admission.windowSeconds);
    for (const bucket of [`session ${subject}`, `address ${admission.address}`]) {
      const seen = this.lookups.get(bucket);
      this.remember(this.lookups, bucket, { window, count: seen?.window === window ? seen.count + 1 : 1 });
    }
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    if (map.size >= this.maxRemembered) map.delete(map.keys().next().value!);
    map.set(key, value);
  }
}

type Blocked = Exclude<Admission["admit"], true>;
const BUDGET_SPENT: Blocked = { blockedBy: "provider_budget", retryAfterSeconds: 1 };
