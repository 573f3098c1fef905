/**
 * Every answer a shopper saw, per checkout attempt: the third source of
 * evidence beside the provider's ledger and the database. The checker trusts
 * these, not the app's opinion of what it answered.
 */
export interface SeenAnswer {
  /** ms since the soak started. */
  at: number;
  method: string;
  path: string;
  /** null: no HTTP answer at all (connection refused, cut, aborted). */
  status: number | null;
  body: unknown;
  /** Why there was no answer. */
  error?: string;
  replayed?: boolean;
}

export interface AttemptLog {
  /** The Idempotency-Key: one per checkout attempt. */
  id: string;
  customerId: string;
  /** The card kind drawn from the table (cards.ts). */
  card: string;
  /** What the body paid with: the ConfirmationToken (or test payment method), or why Stripe.js made none. */
  credential: string;
  amountCents: number;
  /** What the shopper did besides pressing Pay once: double press, abort, reload, check again… */
  behaviours: string[];
  answers: SeenAnswer[];
  /** What the shopper was left looking at when they stopped. */
  outcome: string;
}

/** The outcome's prefix for an attempt Stripe.js refused to make a token for: it never reached the shop. */
export const REFUSED_BY_STRIPE_JS = "refused_by_stripe_";

export class Journal {
  readonly attempts = new Map<string, AttemptLog>();
  private readonly started = Date.now();

  open(log: Omit<AttemptLog, "answers" | "outcome" | "behaviours">): AttemptLog {
    const entry: AttemptLog = { ...log, behaviours: [], answers: [], outcome: "unfinished" };
    this.attempts.set(log.id, entry);
    return entry;
  }

  record(attemptId: string, answer: Omit<SeenAnswer, "at">): void {
    this.attempts.get(attemptId)?.answers.push({ at: Date.now() - this.started, ...answer });
  }

  get finished(): number {
    let n = 0;
    for (const a of this.attempts.values()) if (a.outcome !== "unfinished") n++;
    return n;
  }
}
