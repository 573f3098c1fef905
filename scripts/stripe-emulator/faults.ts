import { stripeError, type ApiResponse } from "./responses";

/**
 * Faults a test or the demo switches on, and counters of what actually
 * happened, so a test can assert that the fault it injected really fired.
 */
export type FailStatus = 500 | 503 | 429;

export interface FaultSettings {
  latencyMs: number;
  failNext: { status: FailStatus; times: number } | null;
  dropAfterCharge: number;
}

export interface FaultStats {
  requests: number;
  failedInjected: number;
  dropped: number;
  charges: number;
  declines: number;
  replayed: number;
  delayed: number;
}

const MAX_LATENCY_MS = 600_000;
const MAX_TIMES = 10_000;
const FAIL_STATUSES: readonly number[] = [500, 503, 429];

export class Faults {
  settings: FaultSettings = { latencyMs: 0, failNext: null, dropAfterCharge: 0 };
  readonly stats: FaultStats = { requests: 0, failedInjected: 0, dropped: 0, charges: 0, declines: 0, replayed: 0, delayed: 0 };

  /** What GET and POST /_emulator/faults answer. */
  snapshot(): FaultSettings & { stats: FaultStats } {
    return structuredClone({ ...this.settings, stats: this.stats });
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

  /** Merges a validated patch; returns an error message for bad input and changes nothing then. */
  apply(input: unknown): string | null {
    const parsed = parsePatch(input);
    if (typeof parsed === "string") return parsed;
    this.settings = { ...this.settings, ...parsed };
    return null;
  }
}

function parsePatch(input: unknown): Partial<FaultSettings> | string {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return "Expected a JSON object.";
  const patch: Partial<FaultSettings> = {};
  for (const [name, value] of Object.entries(input)) {
    if (name === "latencyMs") {
      if (!isCount(value, MAX_LATENCY_MS)) return `latencyMs must be an integer between 0 and ${MAX_LATENCY_MS}.`;
      patch.latencyMs = value;
    } else if (name === "dropAfterCharge") {
      if (!isCount(value, MAX_TIMES)) return `dropAfterCharge must be an integer between 0 and ${MAX_TIMES}.`;
      patch.dropAfterCharge = value;
    } else if (name === "failNext") {
      const failNext = parseFailNext(value);
      if (typeof failNext === "string") return failNext;
      patch.failNext = failNext;
    } else {
      return `Unknown fault: ${name}. Known faults: latencyMs, failNext, dropAfterCharge.`;
    }
  }
  return patch;
}

function parseFailNext(value: unknown): FaultSettings["failNext"] | string {
  if (value === null) return null; // explicit "disarm"
  const shape = 'failNext must be null or { "status": 500|503|429, "times": n }.';
  if (typeof value !== "object" || Array.isArray(value)) return shape;
  const { status, times, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || typeof status !== "number" || !FAIL_STATUSES.includes(status)) return shape;
  if (!isCount(times, MAX_TIMES)) return `failNext.times must be an integer between 0 and ${MAX_TIMES}.`;
  return times === 0 ? null : { status: status as FailStatus, times };
}

function isCount(value: unknown, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= max;
}

/** Shaped like Stripe's own overload answers, so the SDK maps them to the same error classes. */
function injectedFailure(status: FailStatus): ApiResponse {
  if (status === 429) {
    return stripeError(429, {
      type: "invalid_request_error",
      code: "rate_limit",
      message: "Too many requests hit the API too quickly. We recommend an exponential backoff of your requests. (injected by the Stripe emulator)",
    });
  }
  return stripeError(status, {
    type: "api_error",
    message: `Stripe is temporarily unavailable (HTTP ${status}, injected by the Stripe emulator). Nothing was executed; retrying is safe.`,
  });
}
