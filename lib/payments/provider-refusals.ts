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
  /** The API path Stripe refused, e.g. `/v1/refunds` (without the query). */
  path: string;
  /** The request's method, when known: GET needs a resource's read permission, anything else its write. */
  method?: string;
  at: number;
}

/** How often a refusal raises the alarm (an error in the log) while refusals last; each one is reported. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;

/** Hears of every refusal; `alarm` is true for at most one a minute. */
type Report = (refusal: ProviderRefusal, alarm: boolean) => void;

interface State {
  /** By method and endpoint (ids replaced by `:id`): the refusal that was its latest answer. */
  refusals: Map<string, ProviderRefusal>;
  alarmedAt: number;
}

// On globalThis: Next bundles this module more than once, and there is one Stripe account per process.
const globalForRefusals = globalThis as unknown as { providerRefusals?: State };

function state(): State {
  globalForRefusals.providerRefusals ??= { refusals: new Map(), alarmedAt: -Infinity };
  return globalForRefusals.providerRefusals;
}

/** Whether a refusal stops payments: the key itself (401), the PaymentIntents the checkout pays through, or the card it reads first. */
export function isPaymentRefusal(refusal: ProviderRefusal): boolean {
  return refusal.status === 401 || /^\/v1\/(payment_intents|confirmation_tokens|payment_methods)\b/.test(refusal.path);
}

/** The newest payment-path refusal still standing (its endpoint has not answered 2xx since), if any. */
export function currentRefusal(): ProviderRefusal | null {
  let newest: ProviderRefusal | null = null;
  for (const refusal of state().refusals.values())
    if (isPaymentRefusal(refusal) && (!newest || refusal.at >= newest.at)) newest = refusal;
  return newest;
}

/** The refusals still standing off the payment path (the events catch-up, refunds): alarms, not unreadiness. */
export function backgroundRefusals(): ProviderRefusal[] {
  return [...state().refusals.values()].filter((refusal) => !isPaymentRefusal(refusal));
}

/** Notes one answer from Stripe; each refusal is reported, with the alarm at most once a minute. */
export function noteProviderAnswer(
  answer: { status: number; path: string; method?: string },
  report: Report,
  now = Date.now(),
): void {
  const s = state();
  const path = answer.path.split("?")[0] ?? answer.path;
  // By method too: a restricted key may read what it cannot write, and the health probe's list must not lift a refused create.
  // An id has a digit or a capital after its prefix (pi_3Nx…, ctoken_1…); a resource name (payment_intents) has neither.
  const endpoint = `${answer.method?.toUpperCase() ?? ""} ${path.replace(/\/[a-z]+_(?=[A-Za-z0-9_]*[A-Z0-9])[A-Za-z0-9_]+/g, "/:id")}`;
  if (answer.status !== 401 && answer.status !== 403) {
    if (answer.status < 400) s.refusals.delete(endpoint);
    return;
  }
  const refusal: ProviderRefusal = {
    status: answer.status,
    path,
    at: now,
    ...(answer.method ? { method: answer.method } : {}),
  };
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
    noteProviderAnswer({ status: event.status, path: event.path, method: event.method }, report),
  );
  return stripe;
}

/** The restricted-key permission (as the Dashboard names it) an endpoint needs. */
export function permissionFor(refusal: Pick<ProviderRefusal, "path" | "method">): string {
  const resource = /^\/v1\/([a-z_]+)/.exec(refusal.path)?.[1] ?? "";
  const names: Record<string, string> = {
    payment_intents: "PaymentIntents",
    refunds: "Refunds",
    events: "Events",
    charges: "Charges",
    confirmation_tokens: "ConfirmationTokens",
    payment_methods: "PaymentMethods",
  };
  const access = resource === "events" || refusal.method === "GET" ? "read" : "write";
  return `${names[resource] ?? resource}: ${access}`;
}

/** What to tell anyone about a refusal: what to change, without the refused path (nor the ids it may carry). */
export function summariseRefusal(refusal: ProviderRefusal): string {
  if (refusal.status === 401)
    return "Stripe refused the API key (401): set STRIPE_SECRET_KEY to a valid secret or restricted key.";
  return "Stripe refused a permission the shop needs (403): give the restricted key STRIPE_SECRET_KEY the permissions the README lists (which one: /api/health with the metrics token, or the log).";
}

/** What to tell an operator about a refusal: one line naming what to change. */
export function describeRefusal(refusal: ProviderRefusal): string {
  if (refusal.status === 401)
    return `Stripe refused the API key (401 on ${refusal.path}): set STRIPE_SECRET_KEY to a valid secret or restricted key.`;
  const blocked = isPaymentRefusal(refusal)
    ? "payments cannot be taken"
    : refusal.path.startsWith("/v1/events")
      ? "the events catch-up cannot run"
      : "the shop cannot give money back or record refunds";
  return `Stripe refused a permission (403 on ${refusal.path}, ${blocked}): give the restricted key STRIPE_SECRET_KEY ${permissionFor(refusal)} (the README lists the permissions the shop needs).`;
}
