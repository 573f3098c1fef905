import type Stripe from "stripe";

/**
 * Stripe's `401` (the key is wrong or revoked) and `403` (a restricted key
 * lacks a permission) are configuration, not weather: retrying does not help
 * and an operator must act. Every client the app builds reports its answers
 * here; while an endpoint's latest answer was a refusal, payments are not
 * ready (`GET /api/health` says why): a restricted key without the refunds
 * permission still takes payments, but cannot give money back. An attempt refused this way is not burned:
 * its outcome stays unknown, so the shopper's retry with the same key, or the
 * reconciler, pays once the key is fixed.
 */
export interface ProviderRefusal {
  status: 401 | 403;
  /** The API path Stripe refused, e.g. `/v1/refunds`. */
  path: string;
  at: number;
}

/** How often a refusal raises the alarm (an error in the log) while refusals last; each one is reported. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;

/** Hears of every refusal; `alarm` is true for at most one a minute. */
type Report = (refusal: ProviderRefusal, alarm: boolean) => void;

interface State {
  /** By endpoint (ids replaced by `:id`): the refusal that was its latest answer. */
  refusals: Map<string, ProviderRefusal>;
  alarmedAt: number;
}

// On globalThis: Next bundles this module more than once, and there is one Stripe account per process.
const globalForRefusals = globalThis as unknown as { providerRefusals?: State };

function state(): State {
  globalForRefusals.providerRefusals ??= { refusals: new Map(), alarmedAt: -Infinity };
  return globalForRefusals.providerRefusals;
}

/** The newest refusal still standing (its endpoint has not answered 2xx since), if any. */
export function currentRefusal(): ProviderRefusal | null {
  let newest: ProviderRefusal | null = null;
  for (const refusal of state().refusals.values()) if (!newest || refusal.at >= newest.at) newest = refusal;
  return newest;
}

/** Notes one answer from Stripe; each refusal is reported, with the alarm at most once a minute. */
export function noteProviderAnswer(answer: { status: number; path: string }, report: Report, now = Date.now()): void {
  const s = state();
  const endpoint = answer.path.replace(/\/[a-z]+_[A-Za-z0-9_]+/g, "/:id");
  if (answer.status !== 401 && answer.status !== 403) {
    if (answer.status < 400) s.refusals.delete(endpoint);
    return;
  }
  const refusal: ProviderRefusal = { status: answer.status, path: answer.path, at: now };
  s.refusals.set(endpoint, refusal);
  const alarm = now - s.alarmedAt >= REFUSAL_LOG_INTERVAL_MS;
  if (alarm) s.alarmedAt = now;
  report(refusal, alarm);
}

/** Forgets every refusal (tests). */
export function clearRefusals(): void {
  globalForRefusals.providerRefusals = undefined;
}

/** Reports every answer `stripe` gets (the SDK's `response` event). */
export function watchRefusals(stripe: Stripe, report: Report): Stripe {
  stripe.on("response", (event: Stripe.ResponseEvent) =>
    noteProviderAnswer({ status: event.status, path: event.path }, report),
  );
  return stripe;
}

/** What to tell an operator about a refusal: one line naming what to change. */
export function describeRefusal(refusal: ProviderRefusal): string {
  return refusal.status === 401
    ? `Stripe refused the API key (401 on ${refusal.path}): set STRIPE_SECRET_KEY to a valid secret or restricted key.`
    : `Stripe refused a permission (403 on ${refusal.path}): give the restricted key STRIPE_SECRET_KEY the permissions the README lists.`;
}
