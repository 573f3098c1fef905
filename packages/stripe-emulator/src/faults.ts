import { parsePatch } from "./fault-patch";
import { stripeError, type ApiResponse } from "./responses";

/**
 * Faults a test or the demo switches on, and counters of what actually
 * happened, so a test can assert that the fault it injected really fired.
 */
export type FailStatus = 500 | 503 | 429;

/**
 * How the Stripe.js stand-in's next `handleNextAction` fails: it rejects
 * (`reject`), it cannot reach Stripe (`network`: resolves `api_connection_error`), or the
 * bank's window closes before the shopper answers it (`closed`).
 */
export type StripeJsFailure = "reject" | "network" | "closed";

export interface FaultSettings {
  latencyMs: number;
  /** Writes execute at once, and their answer is then held this long: the network on the way back is slow. */
  answerLatencyMs: number;
  failNext: { status: FailStatus; times: number } | null;
  dropAfterCharge: number;
  /** The next n creates with an Idempotency-Key execute nothing, answer 500, and that 500 is stored for the key. */
  storeCreate500: number;
  /** How long a key is remembered (Stripe: at least 24 h); after that a same-key request executes anew. */
  idempotencyKeyTtlMs: number;
  /** How long a ConfirmationToken can confirm a PaymentIntent (Stripe's tokens: 12 hours). */
  confirmationTokenTtlMs: number;
  /** Requests per rolling second on /v1 beyond which the answer is 429 rate_limit. */
  rateLimit: { perSecond: number } | null;
  /** The next n writes drop the connection at once and execute delayMs later: a caller that gave up. */
  lateExecution: { delayMs: number; times: number } | null;
  /** While set, every /v1 request is refused as Stripe refuses a revoked key (401) or a restricted key's missing permission (403). */
  refuse: { status: 401 | 403 } | null;
  /** Closed: every write waits, after claiming its key, until the gate opens or a `release` lets it go. */
  gate: boolean;
  /** Search sees an intent only this long after it was created (Stripe: under a minute, up to an hour in an outage). */
  searchLagMs: number;
  /** The account has no search (Stripe: not available to merchants in India): every search is refused. */
  searchUnavailable: boolean;
  /** The next n `handleNextAction` calls of the Stripe.js stand-in fail this way. */
  stripeJs: { failure: StripeJsFailure; times: number } | null;
}

/** What GET and POST /_emulator/faults answer: the settings, the writes held at the gate now, and the counters. */
export type FaultsView = FaultSettings & { held: number; stats: FaultStats };

export const DAY_MS = 24 * 60 * 60 * 1000;

const STAT_NAMES = [
  "requests",
  "failedInjected",
  "dropped",
  "charges",
  "declines",
  "replayed",
  "delayed",
  "answersDelayed",
  "authenticationsRequired",
  "authenticationsCompleted",
  "authenticationsFailed",
  "cancellations",
  "refunds",
  "refundsFailed",
  "storedCreate500",
  "keysExpired",
  "rateLimited",
  "lateAnswered",
  "lateExecuted",
  "refused",
  "forbidden",
  "searches",
  "searchesRefused",
  "gated",
  "confirmationTokens",
  "stripeJsFailures",
  "debitsStarted",
  "debitsFailed",
  "bankRedirects",
  "confirms",
] as const;
export type FaultStats = Record<(typeof STAT_NAMES)[number], number>;

export function defaultSettings(): FaultSettings {
  return {
    latencyMs: 0,
    answerLatencyMs: 0,
    failNext: null,
    dropAfterCharge: 0,
    storeCreate500: 0,
    idempotencyKeyTtlMs: DAY_MS,
    confirmationTokenTtlMs: DAY_MS / 2,
    rateLimit: null,
    lateExecution: null,
    refuse: null,
    gate: false,
    searchLagMs: 0,
    searchUnavailable: false,
    stripeJs: null,
  };
}

export class Faults {
  settings: FaultSettings = defaultSettings();
  readonly stats = Object.fromEntries(STAT_NAMES.map((name) => [name, 0])) as FaultStats;
  /** Arrival times (ms) of /v1 requests in the last second, for rateLimit. */
  private recent: number[] = [];
  /** Writes waiting at the closed gate, oldest first: each resolves true to go on, false to give up. */
  private held: Array<(go: boolean) => void> = [];

  snapshot(): FaultsView {
    return structuredClone({ ...this.settings, held: this.held.length, stats: this.stats });
  }

  /** Waits at the gate if it is closed (counted in `gated`): true to execute, false when the emulator shuts down meanwhile. */
  async passGate(shutdown: AbortSignal): Promise<boolean> {
    if (!this.settings.gate) return true;
    if (shutdown.aborted) return false;
    this.stats.gated += 1;
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        this.held = this.held.filter((entry) => entry !== go);
        resolve(false);
      };
      const go = (pass: boolean) => {
        shutdown.removeEventListener("abort", onAbort);
        resolve(pass);
      };
      shutdown.addEventListener("abort", onAbort, { once: true });
      this.held.push(go);
    });
  }

  /** Lets the n oldest held writes go on; the gate stays as it is. */
  release(n: number): void {
    for (const go of this.held.splice(0, n)) go(true);
  }

  /** Opens the gate and lets every held write go on, oldest first. */
  openGate(): void {
    this.settings.gate = false;
    this.release(this.held.length);
  }

  /** Held writes give up without executing (the emulator is closing). */
  dropHeld(): void {
    for (const go of this.held.splice(0)) go(false);
  }

  /** A rolling one-second window: true when this request is over the limit (it is then not counted as admitted). */
  takeRateLimit(now: number): ApiResponse | null {
    const limit = this.settings.rateLimit;
    if (!limit) return null;
    this.recent = this.recent.filter((at) => now - at < 1000);
    if (this.recent.length < limit.perSecond) {
      this.recent.push(now);
      return null;
    }
    this.stats.rateLimited += 1;
    return injectedFailure(429);
  }

  /** Spends one injected failure, if any is armed; the request then stops before the ledger. */
  takeFailure(): ApiResponse | null {
    const failNext = this.settings.failNext;
    if (!failNext) return null;
    failNext.times -= 1;
    if (failNext.times <= 0) this.settings.failNext = null;
    this.stats.failedInjected += 1;
    return injectedFailure(failNext.status);
  }

  /** Spends one armed drop, if any: the caller will destroy the connection instead of answering. */
  takeDrop(): boolean {
    if (this.settings.dropAfterCharge <= 0) return false;
    this.settings.dropAfterCharge -= 1;
    this.stats.dropped += 1;
    return true;
  }

  takeStoreCreate500(): ApiResponse | null {
    if (this.settings.storeCreate500 <= 0) return null;
    this.settings.storeCreate500 -= 1;
    this.stats.storedCreate500 += 1;
    return stripeError(500, {
      type: "api_error",
      message:
        "An unknown error occurred (injected by the Stripe emulator: nothing was executed, and this answer is stored for the Idempotency-Key).",
    });
  }

  /** Spends one late execution, if armed: returns how long to wait before executing. */
  takeLateExecution(): number | null {
    const late = this.settings.lateExecution;
    if (!late) return null;
    late.times -= 1;
    if (late.times <= 0) this.settings.lateExecution = null;
    this.stats.lateAnswered += 1;
    return late.delayMs;
  }

  /** Spends one armed Stripe.js failure, if any (counted in `stripeJsFailures`). */
  takeStripeJsFailure(): StripeJsFailure | null {
    const armed = this.settings.stripeJs;
    if (!armed) return null;
    armed.times -= 1;
    if (armed.times <= 0) this.settings.stripeJs = null;
    this.stats.stripeJsFailures += 1;
    return armed.failure;
  }

  /** The refusal armed for every request, shaped as Stripe's, if any. */
  takeRefusal(apiKey: string): ApiResponse | null {
    const refuse = this.settings.refuse;
    if (!refuse) return null;
    this.stats.refused += 1;
    const masked = `${apiKey.slice(0, 8)}****${apiKey.slice(-4)}`;
    return stripeError(refuse.status, {
      type: "invalid_request_error",
      message:
        refuse.status === 401
          ? `Invalid API Key provided: ${masked} (refused by the Stripe emulator)`
          : `The provided key '${masked}' does not have the required permissions for this endpoint (refused by the Stripe emulator).`,
    });
  }

  /** Merges a validated patch; returns an error message for bad input and changes nothing then. */
  apply(input: unknown): string | null {
    const parsed = parsePatch(input);
    if (typeof parsed === "string") return parsed;
    const { release, ...settings } = parsed;
    this.settings = { ...this.settings, ...settings };
    if (settings.gate === false) this.openGate();
    if (release !== undefined) this.release(release);
    return null;
  }
}

/** Shaped like Stripe's own overload answers, so the SDK maps them to the same error classes. */
function injectedFailure(status: FailStatus): ApiResponse {
  if (status === 429) {
    return stripeError(429, {
      type: "invalid_request_error",
      code: "rate_limit",
      message:
        "Too many requests hit the API too quickly. We recommend an exponential backoff of your requests. (injected by the Stripe emulator)",
    });
  }
  return stripeError(status, {
    type: "api_error",
    message: `Stripe is temporarily unavailable (HTTP ${status}, injected by the Stripe emulator). Nothing was executed; retrying is safe.`,
  });
}
