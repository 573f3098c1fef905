import type { Admission } from "../idempotency/types";
import { isStripeError } from "../payments/stripe-errors";

/** How long a fresh checkout whose card Stripe could not name waits before asking again. */
export const CARD_UNKNOWN_RETRY_AFTER_SECONDS = 2;

/**
 * The card a fresh checkout would pay with, for the claim's per-card count of
 * declines (docs/decisions/0016-declines-per-card.md). Looked up only when the
 * claim may admit a fresh key (otherwise it only reads and the card does not
 * matter), and remembered per credential, so a duplicate of a request this
 * process has seen costs no provider call. Bounded, oldest out first.
 */
export class CardCheck {
  private readonly known = new Map<string, string | null>();

  /** `lookup` null: cards are not counted, and never looked up. */
  constructor(
    private readonly lookup: ((credential: string) => Promise<string | null>) | null,
    private readonly maxRemembered = 10_000,
  ) {}

  /**
   * `admission` with its card. When Stripe cannot say which card it is, a
   * fresh key is refused (`provider_busy`: nothing is charged, the same key is
   * safe to retry) and a known key is still answered by the claim;
   * `providerBusy` says Stripe answered 429.
   */
  async admit(admission: Admission, credential: string): Promise<{ admission: Admission; providerBusy: boolean }> {
    if (!this.lookup || admission.admit !== true) return { admission, providerBusy: false };
    if (this.known.has(credential))
      return { admission: { ...admission, card: this.known.get(credential) ?? null }, providerBusy: false };
    try {
      const card = await this.lookup(credential);
      if (this.known.size >= this.maxRemembered) this.known.delete(this.known.keys().next().value!);
      this.known.set(credential, card);
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
}
