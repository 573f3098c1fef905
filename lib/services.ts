import { observe } from "./observability";
import type { CheckoutDeps } from "./checkout/checkout";
import { db } from "./db";
import { env } from "./env";
import { IdempotencyEngine } from "./idempotency/engine";
import { stripe } from "./payments/stripe";
import type { WebhookDeps } from "./webhooks/deps";

/** The app's wiring: the real database, Stripe client and idempotency settings. */
let deps: CheckoutDeps | undefined;

export function checkoutDeps(): CheckoutDeps {
  deps ??= {
    prisma: db(),
    stripe: stripe(),
    idempotency: new IdempotencyEngine(db(), {
      inProgressTtlMs: env().IDEMPOTENCY_IN_PROGRESS_TTL_MS,
      retentionHours: env().IDEMPOTENCY_RETENTION_HOURS,
    }),
    log: observe,
  };
  return deps;
}

let webhook: WebhookDeps | undefined;

/** The checkout's wiring plus the webhook secret and the processing lease. */
export function webhookDeps(): WebhookDeps {
  // The lease matches the in-progress TTL: processing an event is bounded like an owner's work on an attempt.
  webhook ??= { ...checkoutDeps(), webhookSecret: env().STRIPE_WEBHOOK_SECRET, leaseMs: env().IDEMPOTENCY_IN_PROGRESS_TTL_MS };
  return webhook;
}
