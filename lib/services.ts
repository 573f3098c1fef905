import "server-only";
import { observe } from "./observability";
import type { CheckoutDeps } from "./checkout/checkout";
import { db } from "./db";
import { env } from "./env";
import { IdempotencyEngine } from "./idempotency/engine";
import { stripe } from "./payments/stripe";

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
