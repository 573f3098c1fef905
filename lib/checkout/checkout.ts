import type Stripe from "stripe";
import type { PrismaClient } from "../generated/prisma/client";
import { IN_PROGRESS_RETRY_AFTER_SECONDS, type IdempotencyEngine } from "../idempotency/engine";
import { fingerprint } from "../idempotency/fingerprint";
import type { Ownership, StoredResponse } from "../idempotency/types";
import { attemptExpired, settlePayment, type PaymentOutcome } from "../payments/settle";
import { createOrder, findAttemptOrder, markAttemptOrder, recordPaymentIntent, type PendingOrder } from "./orders";
import { priceCart } from "./price-cart";
import { CHECKOUT_ENDPOINT, type CheckoutRequest } from "./request";

/**
 * The checkout use case (docs/contract.md, "The idempotency state machine"):
 * claim the key, price the cart, create the order, charge once, record the
 * outcome fenced by the claim. Results are values the route maps to HTTP
 * one-to-one.
 */
export type CheckoutResult =
  | { kind: "invalid"; issues: Array<{ path: Array<string | number>; message: string }> }
  | { kind: "response"; response: StoredResponse; replayed: boolean }
  | { kind: "in_progress"; retryAfterSeconds: number }
  | { kind: "mismatch" }
  | { kind: "unavailable"; retryAfterSeconds: number };

export interface CheckoutDeps {
  prisma: PrismaClient;
  stripe: Stripe;
  idempotency: IdempotencyEngine;
  /** The shop's public origin: 3-D Secure returns the shopper to `<appOrigin>/checkout/return`. */
  appOrigin: string;
  /** How long an attempt may wait for the shopper's authentication before the reconciler cancels it. */
  actionTimeoutMs: number;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/** Who answers an attempt's caller: the shopper's own retry, or the reconciler with its per-record backoff. */
export interface SettleOptions {
  /** Settle for good: cancel what has not succeeded, start nothing new. */
  final?: boolean;
  /** When the outcome stays unknown: leave the next try to the client, or back off (reconciler). */
  onUnknown?: "client" | "backoff";
}

/** How long a client should wait after the provider failed transiently. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;
/** Where the provider sends the shopper back after 3-D Secure. */
export const RETURN_PATH = "/checkout/return";

export async function checkout(
  deps: CheckoutDeps,
  input: { customerId: string; key: string; body: CheckoutRequest; origin?: string },
): Promise<CheckoutResult> {
  // The claim comes before pricing: a replay never depends on today's catalogue.
  const scope = { subjectId: input.customerId, endpoint: CHECKOUT_ENDPOINT, key: input.key };
  const claim = await deps.idempotency.claim(scope, fingerprint(input.body));
  deps.log?.("claim", {
    decision: claim.kind,
    key: input.key,
    customerId: input.customerId,
    ...(claim.kind === "claimed" ? claim.owner : {}),
  });
  switch (claim.kind) {
    case "replay":
      return { kind: "response", response: claim.response, replayed: true };
    case "in_progress":
    case "mismatch":
      return claim;
    case "claimed":
      try {
        return await pay(deps, claim.owner, input);
      } catch (err) {
        // Unexpected (the database went away mid-request): give the claim up
        // so the client's retry resumes at once instead of waiting out the TTL.
        await deps.idempotency.release(claim.owner).catch(() => undefined);
        throw err;
      }
  }
}

async function pay(
  deps: CheckoutDeps,
  owner: Ownership,
  input: { customerId: string; key: string; body: CheckoutRequest; origin?: string },
): Promise<CheckoutResult> {
  // A retaken attempt keeps the first owner's order and price.
  const existing = owner.retaken ? await findAttemptOrder(deps.prisma, owner.recordId) : null;
  if (existing?.paymentMethod)
    return settleAttempt(deps, owner, { ...existing, paymentMethod: existing.paymentMethod }, input);

  const cart = await priceCart(deps.prisma, input.body.items);
  if (!cart.ok) {
    // Nothing was charged and nothing is kept: the same body would fail the same way.
    await deps.idempotency.abandon(owner);
    return { kind: "invalid", issues: cart.issues };
  }
  // Written only while this request still owns the claim (null once fenced out).
  const order = await createOrder(deps.prisma, {
    owner,
    customerId: input.customerId,
    paymentMethod: input.body.paymentMethod,
    ...cart,
  });
  if (!order) return answerAsDuplicate(deps, input);
  return settleAttempt(
    deps,
    owner,
    { ...order, paymentMethod: order.paymentMethod ?? input.body.paymentMethod },
    input,
  );
}

/**
 * Drives an owned attempt's order to an outcome and records it, fenced by
 * the claim. The one path for a shopper's request, a retry, the return from
 * 3-D Secure, a webhook and the reconciler.
 */
export async function settleAttempt(
  deps: CheckoutDeps,
  owner: Ownership,
  order: PendingOrder & { paymentMethod: string },
  ids: { customerId: string; key: string; origin?: string },
  options: SettleOptions = {},
): Promise<CheckoutResult> {
  const { prisma, idempotency } = deps;
  const outcome = await settlePayment(
    deps.stripe,
    {
      recordId: owner.recordId,
      attempt: owner.attempt,
      amountCents: order.amountCents,
      currency: order.currency,
      paymentMethod: order.paymentMethod,
      paymentIntentId: order.paymentIntentId,
      metadata: { orderId: order.id, customerId: ids.customerId, idempotencyKey: ids.key },
      returnUrl: returnUrlFor(ids.origin ?? deps.appOrigin, ids.key),
      final: options.final ?? owner.pastDeadline,
    },
    {
      recordPaymentIntent: (id) => recordPaymentIntent(prisma, owner, order.id, id),
      refresh: () => idempotency.refresh(owner),
    },
  );
  deps.log?.("payment", { key: ids.key, orderId: order.id, attempt: owner.attempt, ...outcome });

  switch (outcome.kind) {
    case "fenced":
      return answerAsDuplicate(deps, ids);
    case "unknown":
      await idempotency.release(owner, options.onUnknown ?? "client");
      return { kind: "unavailable", retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS };
    case "requires_action": {
      const response = stored(202, {
        status: "requires_action",
        orderId: order.id,
        nextAction: { type: "redirect", url: outcome.url },
      });
      const parked = await idempotency.park(owner, response, deps.actionTimeoutMs);
      return parked ? { kind: "response", response, replayed: false } : answerAsDuplicate(deps, ids);
    }
    default: {
      const response = responseFor(order, outcome);
      const succeeded = outcome.kind === "succeeded";
      const recorded = await idempotency.finish(
        owner,
        { status: succeeded ? "completed" : "failed", response },
        markAttemptOrder({
          status: succeeded ? "paid" : "failed",
          paymentIntentId: outcome.paymentIntentId,
          ...(outcome.kind === "declined" ? { declineCode: outcome.declineCode } : {}),
          ...(outcome.kind === "failed" ? { declineCode: outcome.code } : {}),
        }),
      );
      // Fenced out: a newer owner took over while this one was charging.
      return recorded ? { kind: "response", response, replayed: false } : answerAsDuplicate(deps, ids);
    }
  }
}

/** Past its deadline, an attempt that never got as far as an order: nothing was charged, and the key only replays. */
export function recordExpired(deps: CheckoutDeps, owner: Ownership): Promise<boolean> {
  return deps.idempotency.finish(owner, { status: "failed", response: responseFor(null, attemptExpired(null)) });
}

export function returnUrlFor(origin: string, key: string): string {
  return `${origin}${RETURN_PATH}?key=${encodeURIComponent(key)}`;
}

type FinalOutcome = Extract<PaymentOutcome, { kind: "succeeded" | "declined" | "failed" }>;

function responseFor(
  order: { id: string; amountCents: number; currency: string } | null,
  outcome: FinalOutcome,
): StoredResponse {
  const orderId = order?.id ?? null;
  switch (outcome.kind) {
    case "succeeded":
      return stored(
        201,
        {
          orderId,
          status: "paid",
          amountCents: order?.amountCents,
          currency: order?.currency,
          paymentIntentId: outcome.paymentIntentId,
        },
        { Location: `/orders/${orderId}` },
      );
    case "declined":
      return stored(402, {
        error: "card_declined",
        message: outcome.message,
        declineCode: outcome.declineCode,
        orderId,
      });
    case "failed":
      return stored(402, { error: outcome.error, message: outcome.message, code: outcome.code, orderId });
  }
}

/** The body is serialised once, here: the first answer and every replay send these bytes. */
function stored(
  statusCode: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): StoredResponse {
  return { statusCode, body: JSON.stringify(body), headers };
}

async function answerAsDuplicate(
  deps: CheckoutDeps,
  input: { customerId: string; key: string },
): Promise<CheckoutResult> {
  const state = await deps.idempotency.find({
    subjectId: input.customerId,
    endpoint: CHECKOUT_ENDPOINT,
    key: input.key,
  });
  if (state?.response) return { kind: "response", response: state.response, replayed: true };
  return { kind: "in_progress", retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
}
