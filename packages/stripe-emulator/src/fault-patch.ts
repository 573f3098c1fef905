import type { FailStatus, FaultSettings, StripeJsFailure } from "./faults";

// Validation of `POST /_emulator/faults` bodies: a bad patch changes nothing
// and says what is wrong, so a typo in a test cannot silently disarm a fault.

const MAX_LATENCY_MS = 600_000;
const MAX_TIMES = 10_000;
const MAX_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const FAIL_STATUSES: readonly number[] = [500, 503, 429];
const KNOWN =
  "latencyMs, answerLatencyMs, failNext, dropAfterCharge, storeCreate500, idempotencyKeyTtlMs, confirmationTokenTtlMs, rateLimit, lateExecution, refuse, gate, release, searchLagMs, searchUnavailable, stripeJs";
const STRIPE_JS_FAILURES: readonly string[] = ["reject", "network", "closed"];

/** A patch: settings to merge, and `release`, an action (let the n oldest writes held at the gate go on). */
export type FaultPatch = Partial<FaultSettings> & { release?: number };

export function parsePatch(input: unknown): FaultPatch | string {
  if (!isObject(input)) return "Expected a JSON object.";
  const patch: FaultPatch = {};
  for (const [name, value] of Object.entries(input)) {
    const error = parseField(patch, name, value);
    if (error) return error;
  }
  return patch;
}

function parseField(patch: FaultPatch, name: string, value: unknown): string | null {
  switch (name) {
    case "gate":
      if (typeof value !== "boolean") return "gate must be true (hold every write) or false (open: let them all go).";
      patch.gate = value;
      return null;
    case "release":
      if (!isCount(value, MAX_TIMES) || value < 1) return `release must be an integer between 1 and ${MAX_TIMES}.`;
      patch.release = value;
      return null;
    case "searchUnavailable":
      if (typeof value !== "boolean") return "searchUnavailable must be true (the account has no search) or false.";
      patch.searchUnavailable = value;
      return null;
    case "searchLagMs":
      if (!isCount(value, MAX_TTL_MS)) return `searchLagMs must be an integer between 0 and ${MAX_TTL_MS}.`;
      patch.searchLagMs = value;
      return null;
    case "latencyMs":
    case "answerLatencyMs":
      if (!isCount(value, MAX_LATENCY_MS)) return `${name} must be an integer between 0 and ${MAX_LATENCY_MS}.`;
      patch[name] = value;
      return null;
    case "dropAfterCharge":
    case "storeCreate500":
      if (!isCount(value, MAX_TIMES)) return `${name} must be an integer between 0 and ${MAX_TIMES}.`;
      patch[name] = value;
      return null;
    case "idempotencyKeyTtlMs":
    case "confirmationTokenTtlMs":
      if (!isCount(value, MAX_TTL_MS) || value < 1) return `${name} must be an integer between 1 and ${MAX_TTL_MS}.`;
      patch[name] = value;
      return null;
    case "failNext": {
      const failNext = parseFailNext(value);
      if (typeof failNext === "string") return failNext;
      patch.failNext = failNext;
      return null;
    }
    case "rateLimit": {
      const shape = 'rateLimit must be null or { "perSecond": n } with n between 1 and 10000.';
      if (value === null) {
        patch.rateLimit = null;
        return null;
      }
      if (
        !isObject(value) ||
        Object.keys(value).join() !== "perSecond" ||
        !isCount(value.perSecond, MAX_TIMES) ||
        value.perSecond < 1
      )
        return shape;
      patch.rateLimit = { perSecond: value.perSecond };
      return null;
    }
    case "lateExecution": {
      const shape = `lateExecution must be null or { "delayMs": 0..${MAX_LATENCY_MS}, "times": 0..${MAX_TIMES} }.`;
      if (value === null) {
        patch.lateExecution = null;
        return null;
      }
      if (!isObject(value) || Object.keys(value).sort().join() !== "delayMs,times") return shape;
      if (!isCount(value.delayMs, MAX_LATENCY_MS) || !isCount(value.times, MAX_TIMES)) return shape;
      patch.lateExecution = value.times === 0 ? null : { delayMs: value.delayMs, times: value.times };
      return null;
    }
    case "refuse": {
      if (value === null) {
        patch.refuse = null;
        return null;
      }
      if (!isObject(value) || Object.keys(value).join() !== "status" || (value.status !== 401 && value.status !== 403))
        return 'refuse must be null or { "status": 401|403 }.';
      patch.refuse = { status: value.status };
      return null;
    }
    case "stripeJs": {
      const shape = `stripeJs must be null or { "failure": "reject"|"network"|"closed", "times": 0..${MAX_TIMES} }.`;
      if (value === null) {
        patch.stripeJs = null;
        return null;
      }
      if (!isObject(value) || Object.keys(value).sort().join() !== "failure,times") return shape;
      if (typeof value.failure !== "string" || !STRIPE_JS_FAILURES.includes(value.failure)) return shape;
      if (!isCount(value.times, MAX_TIMES)) return shape;
      patch.stripeJs = value.times === 0 ? null : { failure: value.failure as StripeJsFailure, times: value.times };
      return null;
    }
    default:
      return `Unknown fault: ${name}. Known faults: ${KNOWN}.`;
  }
}

function parseFailNext(value: unknown): FaultSettings["failNext"] | string {
  if (value === null) return null; // explicit "disarm"
  const shape = 'failNext must be null or { "status": 500|503|429, "times": n }.';
  if (!isObject(value)) return shape;
  const { status, times, ...rest } = value;
  if (Object.keys(rest).length > 0 || typeof status !== "number" || !FAIL_STATUSES.includes(status)) return shape;
  if (!isCount(times, MAX_TIMES)) return `failNext.times must be an integer between 0 and ${MAX_TIMES}.`;
  return times === 0 ? null : { status: status as FailStatus, times };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isCount(value: unknown, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= max;
}
