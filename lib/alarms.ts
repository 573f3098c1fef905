import { backgroundRefusals, describeRefusal } from "./payments/provider-refusals";

/**
 * What an operator must look at although the shop still takes payments: a
 * background path Stripe refuses (the events catch-up without Events: read),
 * an intent of this shop whose metadata no longer verifies. An alarm does
 * not make `GET /api/health` unready (that would pull every instance for
 * something a restart cannot fix); it is an error in the log where it is
 * raised, the `checkout_alarms{kind}` gauge, and a reason in `/api/health`
 * for whoever holds the metrics token.
 */
export interface Alarm {
  kind: string;
  reason: string;
  at: number;
}

/** A raised alarm stands this long after it was last raised; a refusal stands until its endpoint answers again. */
export const ALARM_HOLD_MS = 60 * 60 * 1000;

// On globalThis: Next bundles this module more than once, and the alarms are one per process.
const globalForAlarms = globalThis as unknown as { alarms?: Map<string, Alarm> };

function raised(): Map<string, Alarm> {
  globalForAlarms.alarms ??= new Map();
  return globalForAlarms.alarms;
}

/** Raises (or renews) the alarm of this kind; the caller logs it. */
export function raiseAlarm(kind: string, reason: string, now = Date.now()): void {
  raised().set(kind, { kind, reason, at: now });
}

/** Every alarm standing now, refusals off the payment path included, oldest first. */
export function activeAlarms(now = Date.now()): Alarm[] {
  const standing = [...raised().values()].filter((alarm) => now - alarm.at < ALARM_HOLD_MS);
  for (const refusal of backgroundRefusals())
    standing.push({ kind: "stripe_refused", reason: describeRefusal(refusal), at: refusal.at });
  return standing.sort((a, b) => a.at - b.at);
}

/** Forgets every raised alarm (tests). */
export function clearAlarms(): void {
  globalForAlarms.alarms = undefined;
}
