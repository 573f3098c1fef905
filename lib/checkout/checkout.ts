import type Stripe from "stripe";
import type { PrismaClient } from "../generated/prisma/client";
import type { IdempotencyEngine } from "../idempotency/engine";
import { fingerprint } from "../idempotency/fingerprint";
import type { Ownership, StoredResponse } from "../idempotency/types";
import { settlePayment, type PaymentOutcome } from "../payments/settle";
import { createOrder, markAttemptOrder, recordPaymentIntent, type PendingOrder } from "./orders";
import { priceCart, type PricedCart } from "./price-cart";
import { CHECKOUT_ENDPOINT, type CheckoutRequest } from "./request";

/**
 * The checkout use case (docs/contract.md §3, steps 2–5): price the cart, claim
 * the key, create the order, charge once, record the outcome fenced by the
 * claim. Results are values the route maps to HTTP one-to-one.
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
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/** How long a client should wait after the provider failed transiently. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

export async function checkout(
  deps: CheckoutDeps,
  input: { customerId: string; key: string; body: CheckoutRequest },
): Promise<CheckoutResult> {
  const cart = await priceCart(deps.prisma, input.body.items);
  if (!cart.ok) return { kind: "invalid", issues: cart.issues };

  const scope = { subjectId: input.customerId, endpoint: CHECKOUT_ENDPOINT, key: input.key };
  const claim = await deps.idempotency.claim(scope, fingerprint(input.body));
  deps.log?.("claim", { decision: claim.kind, key: input.key, customerId: input.customerId, ...(claim.kind === "claimed" ? claim.owner : {}) });
  switch (claim.kind) {
    case "replay":
      return { kind: "response", response: claim.response, replayed: true };
    case "in_progress":
    case "mismatch":
      return claim;
    case "claimed":
      try {
        return await pay(deps, claim.owner, input, cart);
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
  input: { customerId: string; key: string; body: CheckoutRequest },
  cart: Extract<PricedCart, { ok: true }>,
): Promise<CheckoutResult> {
  // Written only while this request still owns the claim (null once fenced out).
  const order = await createOrder(deps.prisma, {
    owner,
    customerId: input.customerId,
    paymentMethod: input.body.paymentMethod,
    ...cart,
  });
  if (!order) return answerAsDuplicate(deps, input);
  return settleAttempt(deps, owner, { ...order, paymentMethod: input.body.paymentMethod }, input);
}

/**
 * Drives an owned attempt's order to an outcome and records it (docs/contract.md §3, steps
 * 4–5). Shared by the request path and the reconciler, which resumes
 * attempts whose shopper never came back.
 */
export async function settleAttempt(
  deps: CheckoutDeps,
  owner: Ownership,
  order: PendingOrder & { paymentMethod: string },
  ids: { customerId: string; key: string },
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
    },
    (paymentIntentId) => recordPaymentIntent(prisma, order.id, paymentIntentId),
  );
  deps.log?.("payment", { key: ids.key, orderId: order.id, attempt: owner.attempt, ...outcome });

  if (outcome.kind === "unknown") {
    await idempotency.release(owner);
    return { kind: "unavailable", retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS };
  }
  const response = responseFor(order, outcome);
  const recorded = await idempotency.finish(
    owner,
    { status: outcome.kind === "succeeded" ? "completed" : "failed", response },
    markAttemptOrder({
      status: outcome.kind === "succeeded" ? "paid" : "failed",
      paymentIntentId: outcome.paymentIntentId,
      ...(outcome.kind === "declined" ? { declineCode: outcome.declineCode } : {}),
    }),
  );
  // Fenced out: a newer owner took over while this one was charging.
  return recorded ? { kind: "response", response, replayed: false } : answerAsDuplicate(deps, ids);
}

function responseFor(order: { id: string; amountCents: number; currency: string }, outcome: Exclude<PaymentOutcome, { kind: "unknown" }>): StoredResponse {
  if (outcome.kind === "succeeded") {
    return {
      statusCode: 201,
      body: { orderId: order.id, status: "paid", amountCents: order.amountCents, currency: order.currency, paymentIntentId: outcome.paymentIntentId },
      headers: { Location: `/orders/${order.id}` },
    };
  }
  return {
    statusCode: 402,
    body: { error: "card_declined", message: outcome.message, declineCode: outcome.declineCode, orderId: order.id },
    headers: {},
  };
}

async function answerAsDuplicate(deps: CheckoutDeps, input: { customerId: string; key: string }): Promise<CheckoutResult> {
  const state = await deps.idempotency.find({ subjectId: input.customerId, endpoint: CHECKOUT_ENDPOINT, key: input.key });
  if (state?.response) return { kind: "response", response: state.response, replayed: true };
  return { kind: "in_progress", retryAfterSeconds: 1 };
}
