import "server-only";
import type Stripe from "stripe";
import { observe, observePhase } from "./observability";
import type { CheckoutDeps } from "./checkout/checkout";
import { CardCheck } from "./abuse/card-check";
import { CheckoutGate } from "./abuse/checkout-gate";
import { AbuseLimits } from "./abuse/limits";
import { db, poolOf, engineDatabase } from "./db";
import { env, type Env } from "./env";
import type { PrismaClient } from "./generated/prisma/client";
import { IdempotencyEngine } from "@checkout/idempotency";
import { configuredShopIdentity } from "./checkout/intent-ownership";
import { parkedLookAfterMs } from "./checkout/reconcile";
import { cardFingerprint } from "./payments/card-fingerprint";
import { worstCaseStripeCallMs } from "./payments/limits";
import { backgroundStripe, stripe } from "./payments/stripe";
import type { WebhookDeps } from "./webhooks/deps";

/** The checkout's wiring from the configuration: the app's, and `npm run reconcile`'s from cron. */
export function createCheckoutDeps(config: Env, prisma: PrismaClient, stripeClient: Stripe): CheckoutDeps {
  return {
    prisma,
    stripe: stripeClient,
    idempotency: new IdempotencyEngine(engineDatabase(prisma), {
      inProgressTtlMs: config.IDEMPOTENCY_IN_PROGRESS_TTL_MS,
      retentionHours: config.IDEMPOTENCY_RETENTION_HOURS,
      attemptDeadlineMs: config.PAYMENT_ATTEMPT_DEADLINE_MS,
      // A lock younger than this outlives the next provider call: checked, not rewritten.
      renewAfterMs:
        config.IDEMPOTENCY_IN_PROGRESS_TTL_MS -
        worstCaseStripeCallMs(config.STRIPE_TIMEOUT_MS, config.STRIPE_MAX_NETWORK_RETRIES),
      retakeIntervalMs: config.IDEMPOTENCY_RETAKE_INTERVAL_MS,
      parkedLookAfterMs: parkedLookAfterMs(config.PAYMENT_ACTION_TIMEOUT_MS),
    }),
    // The first public origin (APP_ORIGIN); without one, this host as the demo and tests reach it.
    appOrigin: config.appOrigins[0] ?? `http://localhost:${config.PORT}`,
    actionTimeoutMs: config.PAYMENT_ACTION_TIMEOUT_MS,
    paymentMethodTypes: config.PAYMENT_METHOD_TYPES,
    log: observe,
    phase: observePhase,
    // Keyed by the session secret (and the one before a rotation): docs/decisions/0012.
    identity: configuredShopIdentity(config),
    declineWindowSeconds: config.RATE_LIMIT_DECLINE_WINDOW_SECONDS,
  };
}

let deps: CheckoutDeps | undefined;

/** The app's wiring: the real database, Stripe client and idempotency settings. */
export function checkoutDeps(): CheckoutDeps {
  deps ??= createCheckoutDeps(env(), db(), stripe());
  return deps;
}

/** The checkout's wiring plus the webhook secret and the processing lease. */
export function createWebhookDeps(config: Env, checkout: CheckoutDeps): WebhookDeps {
  // The lease matches the in-progress TTL: processing an event is bounded like an owner's work on an attempt.
  return { ...checkout, webhookSecret: config.STRIPE_WEBHOOK_SECRET, leaseMs: config.IDEMPOTENCY_IN_PROGRESS_TTL_MS };
}

let webhook: WebhookDeps | undefined;

/** The app's webhook wiring. */
export function webhookDeps(): WebhookDeps {
  // The shop's own calls draw on a budget of their own, never on the shoppers'.
  webhook ??= createWebhookDeps(env(), { ...checkoutDeps(), stripe: backgroundStripe() });
  return webhook;
}

let limits: AbuseLimits | undefined;

/** The app's abuse limits, counted on the app's own database pool. */
export function abuseLimits(): AbuseLimits {
  const config = env();
  limits ??= new AbuseLimits(
    poolOf(db()),
    {
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      scale: config.RATE_LIMIT_SCALE,
      perWindow: {
        session_per_address: config.RATE_LIMIT_SESSIONS_PER_ADDRESS,
        return_per_address: config.RATE_LIMIT_RETURNS_PER_ADDRESS,
        return_per_session: config.RATE_LIMIT_RETURNS_PER_SESSION,
        csp_report_per_address: config.RATE_LIMIT_CSP_REPORTS_PER_ADDRESS,
        ops_signin_per_address: config.RATE_LIMIT_OPS_SIGNINS_PER_ADDRESS,
      },
    },
    observe,
  );
  return limits;
}

let gate: CheckoutGate | undefined;

/** The checkout's admission limits, checked in the claim, and the buckets this process saw spent. */
export function checkoutGate(): CheckoutGate {
  const config = env();
  gate ??= new CheckoutGate({
    perAddress: config.RATE_LIMIT_CHECKOUTS_PER_ADDRESS * config.RATE_LIMIT_SCALE,
    perSession: config.RATE_LIMIT_CHECKOUTS_PER_SESSION * config.RATE_LIMIT_SCALE,
    maxOpenAttempts: config.CHECKOUT_MAX_OPEN_ATTEMPTS * config.RATE_LIMIT_SCALE,
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    declinesPerSession: config.RATE_LIMIT_DECLINES_PER_SESSION * config.RATE_LIMIT_SCALE,
    declinesPerAddress: config.RATE_LIMIT_DECLINES_PER_ADDRESS * config.RATE_LIMIT_SCALE,
    declinesPerCard: config.RATE_LIMIT_DECLINES_PER_CARD * config.RATE_LIMIT_SCALE,
    declineWindowSeconds: config.RATE_LIMIT_DECLINE_WINDOW_SECONDS,
    providerPerSecond: config.providerPerSecond.shoppers,
    providerBreakerSeconds: config.PROVIDER_BREAKER_SECONDS,
  });
  return gate;
}

let cards: CardCheck | undefined;

/** Which card a fresh checkout would pay with, asked of Stripe and remembered per credential; never, with the per-card count off. */
export function cardCheck(): CardCheck {
  cards ??= new CardCheck(
    env().RATE_LIMIT_DECLINES_PER_CARD > 0 ? (credential) => cardFingerprint(stripe(), credential) : null,
  );
  return cards;
}
