import { unknownCredentialsAreTheShoppers } from "../payments/key-pair";
import { knownAttempt, type CheckoutAttempt } from "./attempt";
import { shopperDecline } from "../payments/shopper-decline";
import type Stripe from "stripe";
import type { PrismaClient } from "../generated/prisma/client";
import {
  IN_PROGRESS_RETRY_AFTER_SECONDS,
  type IdempotencyEngine,
  type Ownership,
  type StoredResponse,
  fingerprint,
} from "@checkout/idempotency";
import {
  admissionGate,
  checkoutGate,
  countDecline as countDeclineIn,
  type Admission,
  type AdmissionRule,
} from "../abuse/admission";
import { findLivePayment, type LivePayment } from "./checkouts";
import type { CheckoutPhase } from "../observability";
import { paymentKeys } from "../payments/attempt-intent";
import { drivePayment, type MandateAcceptance } from "../payments/drive";
import { attemptExpired, loggable, type FinalOutcome, type PaymentOutcome } from "../payments/outcome";
import { settleForGood } from "../payments/settle-for-good";
import type {
  ActionAnswer,
  CheckoutAnswer,
  DeclinedAnswer,
  FailedAnswer,
  PaidAnswer,
  ProcessingAnswer,
} from "./answers";
import { attemptMetadata, isAttemptIntentOf, type ShopIdentity } from "./intent-ownership";
import { createAttemptOrder, findAttemptOrder, markAttemptOrder, type PendingOrder } from "./orders";
import { paymentCredential, type CheckoutRequest, type ValidationIssue } from "./request";
import { inSpan, keyHash } from "../tracing/spans";

/**
 * The checkout use case (docs/contract.md, "The idempotency state machine"):
 * claim the key, price the cart into the attempt's order, charge once,
 * record the outcome fenced by the claim — three statements and one provider
 * call for a fresh attempt. Results are values the route maps to HTTP
 * one-to-one.
 */
export type CheckoutResult =
  | { kind: "invalid"; issues: ValidationIssue[] }
  | { kind: "response"; response: StoredResponse; replayed: boolean }
  | { kind: "in_progress"; retryAfterSeconds: number }
  | { kind: "mismatch" }
  | { kind: "refused"; rule: AdmissionRule; retryAfterSeconds: number }
  /** The checkout named is not the customer's, or does not exist. */
  | { kind: "not_found" }
  /** A fresh key for a checkout with a live payment: that payment, which the client follows by its key. */
  | { kind: "checkout_has_payment"; payment: LivePayment }
  | { kind: "unavailable"; retryAfterSeconds: number; providerBusy?: true };

export interface CheckoutDeps {
  prisma: PrismaClient;
  stripe: Stripe;
  idempotency: IdempotencyEngine;
  /** The shop's public origin when the request names none: 3-D Secure returns the shopper to `<origin>/checkout/return`. */
  appOrigin: string;
  /** How long an attempt may wait for the shopper's authentication before the reconciler cancels it. */
  actionTimeoutMs: number;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** Times a shopper's request phase by phase (`checkout_phase_seconds`): from `startedAt` (performance.now()) to now. */
  phase?: (phase: CheckoutPhase, startedAt: number) => void;
  /** The payment method types the shop takes (PAYMENT_METHOD_TYPES; cards always, and only cards when absent). */
  paymentMethodTypes?: readonly string[];
  /** Whose intents are this shop's (intent-ownership.ts): signs every intent it creates, judges every one it finds. */
  identity: ShopIdentity;
  /** The card-testing brake's window (`RATE_LIMIT_DECLINE_WINDOW_SECONDS`); unset, declines are not counted. */
  declineWindowSeconds?: number;
}

/**
 * Whose attempt is being settled. `address` and `card` are known on a
 * shopper's own request (the client's address, the card looked up before the
 * claim); a webhook or the reconciler counts a decline per session and per
 * the card the decline names.
 */
export interface AttemptIds {
  customerId: string;
  key: string;
  address?: string;
  card?: string | null;
  /** The shopper's acceptance of a SEPA mandate, from this request (the create that confirms sends it). */
  mandate?: MandateAcceptance | null;
}

/** Who answers an attempt's caller: the shopper's own retry, or the reconciler with its per-record backoff. */
export interface SettleOptions {
  /** Settle for good: cancel what has not succeeded, start nothing new. */
  final?: boolean;
  /** When the outcome stays unknown: leave the next try to the client, or back off (reconciler). */
  onUnknown?: "client" | "backoff";
  /** A shopper's own request: its provider and outcome phases are timed (`CheckoutDeps.phase`). */
  timed?: boolean;
}

/** How long a client should wait after the provider failed transiently. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;
/** Where the provider sends the shopper back after 3-D Secure. */
export const RETURN_PATH = "/checkout/return";

/** An owned attempt's result, and the payment outcome it recorded (`fenced` when another owner took over). */
export interface Settled {
  result: CheckoutResult;
  outcome: PaymentOutcome;
}

/** The attempt's order as settling needs it: what it was claimed to pay with (a `pm_…` or a `ctoken_…`). */
export type SettleableOrder = PendingOrder & { paymentMethod: string };

export async function checkout(
  deps: CheckoutDeps,
  input: {
    customerId: string;
    key: string;
    body: CheckoutRequest;
    origin?: string;
    admission?: Admission;
    /** Called when the request ends without a provider call: the unit of the provider budget it reserved goes back. */
    noProviderCall?: () => void;
    /** Where the request came from, counted by the card-testing brake should it be declined. */
    address?: string;
    /** The shopper's browser, for a SEPA mandate's acceptance. */
    userAgent?: string;
  },
): Promise<CheckoutResult> {
  // The claim comes before pricing: a replay never depends on today's catalogue.
  const { scope } = knownAttempt(input.customerId, input.key);
  const claimStarted = performance.now();
  // A fresh key is admitted (or refused) by the claim's own statement: a known key is never limited.
  // A checkout's fresh key is admitted only while the checkout has no live payment, by the same statement.
  const checkoutId = input.body.checkoutId?.toLowerCase() ?? null;
  const gate = input.admission
    ? admissionGate(scope, input.admission, checkoutId)
    : checkoutId
      ? checkoutGate(scope.subjectId, checkoutId)
      : undefined;
  const claim = await deps.idempotency.claim(scope, fingerprint(input.body), gate).catch((err: unknown) => {
    input.noProviderCall?.();
    throw err;
  });
  deps.phase?.("claim", claimStarted);
  deps.log?.("claim", {
    decision: claim.kind,
    key: input.key,
    customerId: input.customerId,
    ...(claim.kind === "claimed" ? claim.owner : {}),
  });
  switch (claim.kind) {
    case "replay":
      input.noProviderCall?.();
      return { kind: "response", response: claim.response, replayed: true };
    case "in_progress":
    case "mismatch":
      input.noProviderCall?.();
      return claim;
    case "refused":
      input.noProviderCall?.();
      return checkoutRefusal(deps, claim, checkoutId);
    case "claimed":
      // A fresh key or a retake: either asks the provider, on the unit reserved for it.
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

/**
 * A refusal about the checkout itself, as its answer: a 404 for a checkout
 * that is not the customer's; for one with a live payment, that payment (read
 * after the claim refused; if it failed meanwhile, the same key may ask again
 * and be admitted).
 */
async function checkoutRefusal(
  deps: CheckoutDeps,
  refusal: { rule: AdmissionRule; retryAfterSeconds: number },
  checkoutId: string | null,
): Promise<CheckoutResult> {
  if (refusal.rule === "unknown_checkout") return { kind: "not_found" };
  if (refusal.rule !== "checkout_has_payment" || !checkoutId) return { kind: "refused", ...refusal };
  const payment = await findLivePayment(deps.prisma, checkoutId);
  if (!payment) return { kind: "in_progress", retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
  return { kind: "checkout_has_payment", payment };
}

async function pay(
  deps: CheckoutDeps,
  owner: Ownership,
  input: {
    customerId: string;
    key: string;
    body: CheckoutRequest;
    origin?: string;
    address?: string;
    userAgent?: string;
    admission?: Admission;
    noProviderCall?: () => void;
  },
): Promise<CheckoutResult> {
  // Written only while this request still owns the claim; a retaken attempt
  // gets the first owner's order and price back.
  const orderStarted = performance.now();
  const written = await createAttemptOrder(deps.prisma, {
    owner,
    orderId: knownAttempt(input.customerId, input.key).id,
    customerId: input.customerId,
    items: input.body.items ?? [],
    checkoutId: input.body.checkoutId?.toLowerCase() ?? null,
    key: input.key,
    paymentMethod: paymentCredential(input.body),
    returnUrl: returnUrlFor(input.origin ?? deps.appOrigin, input.key),
    receiptEmail: input.body.receiptEmail ?? null,
  });
  deps.phase?.("order", orderStarted);
  switch (written.kind) {
    case "fenced":
      input.noProviderCall?.();
      deps.log?.("fence_refused", { recordId: owner.recordId, attempt: owner.attempt, write: "order", alarm: false });
      return answerAsDuplicate(deps, input);
    case "invalid":
      // Nothing was charged and nothing is kept: the same body would fail the same way.
      input.noProviderCall?.();
      await deps.idempotency.abandon(owner);
      return { kind: "invalid", issues: written.issues };
    case "order": {
      const { order } = written;
      const settled = await settleAttempt(
        deps,
        owner,
        { ...order, paymentMethod: order.paymentMethod ?? paymentCredential(input.body) },
        { ...input, card: input.admission?.card ?? null, mandate: mandateOf(input) },
        { timed: true },
      );
      return settled.result;
    }
  }
}

/** What to do with an attempt taken over: settle its order, or leave it as `plan` left it (released, abandoned, expired). */
export type ResumePlan<T> = { settle: SettleableOrder; options?: SettleOptions } | { leave: T };

/**
 * The one way to resume an attempt nobody is working on (the 3-D Secure
 * return, a webhook, the reconciler): take it over — with the lock token it
 * was seen with, or from whoever left it — then read its order as its last
 * owner left it (taken over first: an owner still writing the order either
 * committed it or no longer can), and let `plan` say whether to settle it.
 * `record.order`: already read (and checked) by the caller.
 */
export async function resumeAttempt<T>(
  deps: CheckoutDeps,
  record: { recordId: string; lockToken?: string | null; order?: PendingOrder },
  ids: AttemptIds,
  plan: (order: PendingOrder | null, owner: Ownership) => Promise<ResumePlan<T>>,
): Promise<{ kind: "busy" } | { kind: "left"; value: T } | { kind: "settled"; settled: Settled }> {
  // Its own span, carrying the attempt's record id and key hash as the checkout's request span does: the join.
  const attributes = {
    "checkout.attempt.record_id": record.recordId,
    "checkout.idempotency.key_hash": keyHash(ids.key),
  };
  return inSpan("checkout.resume", attributes, async (span) => {
    const owner = await deps.idempotency.takeOver(record);
    span.setAttribute("checkout.resume.taken", owner !== null);
    if (!owner) return { kind: "busy" as const };
    span.setAttribute("checkout.attempt.number", owner.attempt);
    const order = record.order ?? (await findAttemptOrder(deps.prisma, record.recordId));
    if (order) span.setAttribute("checkout.order.id", order.id);
    const next = await plan(order, owner);
    if ("leave" in next) return { kind: "left" as const, value: next.leave };
    return { kind: "settled" as const, settled: await settleAttempt(deps, owner, next.settle, ids, next.options) };
  });
}

/**
 * Drives an owned attempt's order to an outcome and records it, fenced by
 * the claim. The one path for a shopper's request, a retry, the return from
 * 3-D Secure, a webhook and the reconciler.
 */
export async function settleAttempt(
  deps: CheckoutDeps,
  owner: Ownership,
  order: SettleableOrder,
  ids: AttemptIds,
  options: SettleOptions = {},
): Promise<Settled> {
  const { idempotency } = deps;
  const fence = { refresh: () => idempotency.refresh(owner) };
  const providerStarted = performance.now();
  const outcome =
    (options.final ?? owner.pastDeadline)
      ? await settleForGood(
          deps.stripe,
          {
            attemptId: order.id,
            paymentIntentId: order.paymentIntentId,
            since: order.createdAt,
            accepts: isAttemptIntentOf(deps.identity, order.id),
            confirmKey: paymentKeys(order.id).confirm(owner.attempt),
            returnUrl: order.returnUrl ?? returnUrlFor(deps.appOrigin, ids.key),
          },
          fence,
        )
      : await drivePayment(
          deps.stripe,
          {
            attemptId: order.id,
            attempt: owner.attempt,
            amountCents: order.amountCents,
            currency: order.currency,
            paymentMethod: order.paymentMethod,
            paymentIntentId: order.paymentIntentId,
            metadata: attemptMetadata(deps.identity, {
              orderId: order.id,
              customerId: ids.customerId,
              idempotencyKey: ids.key,
              lines: order.lines,
              amountCents: order.amountCents,
              currency: order.currency,
            }),
            accepts: isAttemptIntentOf(deps.identity, order.id),
            returnUrl: order.returnUrl ?? returnUrlFor(deps.appOrigin, ids.key),
            receiptEmail: order.receiptEmail,
            since: order.createdAt,
            allowedTypes: deps.paymentMethodTypes ?? ["card"],
            mandate: ids.mandate ?? null,
          },
          fence,
        );
  if (options.timed) deps.phase?.("provider", providerStarted);
  deps.log?.("payment", { key: ids.key, orderId: order.id, attempt: owner.attempt, ...loggable(outcome) });
  const outcomeStarted = performance.now();
  const settled = await record(deps, owner, order, ids, outcome, options);
  if (options.timed) deps.phase?.("outcome", outcomeStarted);
  return settled;
}

/** Records `outcome` (fenced); once another owner took over, answers as a duplicate would. */
async function record(
  deps: CheckoutDeps,
  owner: Ownership,
  order: SettleableOrder,
  ids: AttemptIds,
  outcome: PaymentOutcome,
  options: SettleOptions,
): Promise<Settled> {
  const { idempotency } = deps;
  const fencedOut = async (): Promise<Settled> => {
    // A newer owner holds the attempt: this owner's write was refused (a span event in traces).
    deps.log?.("fence_refused", {
      recordId: owner.recordId,
      attempt: owner.attempt,
      outcome: outcome.kind,
      alarm: false,
    });
    return { result: await answerAsDuplicate(deps, ids), outcome: { kind: "fenced" } };
  };
  const answered = (response: StoredResponse): Settled => ({
    result: { kind: "response", response, replayed: false },
    outcome,
  });
  switch (outcome.kind) {
    case "fenced":
      return fencedOut();
    case "unknown":
      await idempotency.release(
        owner,
        options.onUnknown ?? "client",
        outcome.paymentIntentId ? markAttemptOrder({ paymentIntentId: outcome.paymentIntentId }) : undefined,
      );
      return {
        result: {
          kind: "unavailable",
          retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
          ...(outcome.providerBusy ? { providerBusy: true as const } : {}),
        },
        outcome,
      };
    case "processing": {
      // The key is done (its answer replays); the order carries the payment until Stripe decides, days later.
      const response = stored(202, {
        status: "processing",
        orderId: order.id,
        paymentIntentId: outcome.paymentIntentId,
      } satisfies ProcessingAnswer);
      const recorded = await idempotency.finish(
        owner,
        { status: "completed", response },
        markAttemptOrder({ status: "processing", paymentIntentId: outcome.paymentIntentId }),
      );
      return recorded ? answered(response) : fencedOut();
    }
    case "requires_action": {
      const response = stored(202, {
        status: "requires_action",
        orderId: order.id,
        nextAction: outcome.action,
      } satisfies ActionAnswer);
      const parked = await idempotency.park(
        owner,
        response,
        deps.actionTimeoutMs,
        markAttemptOrder({ paymentIntentId: outcome.paymentIntentId }),
      );
      return parked ? answered(response) : fencedOut();
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
          ...(outcome.kind === "succeeded" ? { amountCents: outcome.amountCents, card: outcome.card } : {}),
          ...(outcome.kind === "declined" ? { declineCode: outcome.declineCode } : {}),
          ...(outcome.kind === "failed" ? { declineCode: outcome.code } : {}),
        }),
      );
      // Fenced out: a newer owner took over while this one was charging.
      if (!recorded) return fencedOut();
      deps.log?.("outcome_recorded", {
        recordId: owner.recordId,
        attempt: owner.attempt,
        status: response.statusCode,
        alarm: false,
      });
      await countDecline(deps, ids, outcome);
      return answered(response);
    }
  }
}

/**
 * The card-testing brake counts every decline and failed authentication once,
 * by whichever path recorded it (the shopper's request, the return from
 * 3-D Secure, a webhook, the reconciler), after the answer is stored.
 */
async function countDecline(deps: CheckoutDeps, ids: AttemptIds, outcome: FinalOutcome): Promise<void> {
  if (deps.declineWindowSeconds === undefined) return;
  // Made-up credentials are what a card tester sends between cards: counted as declines, unless the shop's
  // own keys are of two accounts (then every shopper's token is unknown, and the alarm says so).
  const counted =
    outcome.kind === "declined" ||
    (outcome.kind === "failed" &&
      (outcome.error === "authentication_failed" ||
        (outcome.unknownCredential === true && unknownCredentialsAreTheShoppers())));
  if (!counted) return;
  // The card as the decline names it; else as looked up before the claim.
  const card = outcome.card ?? ids.card ?? null;
  await countDeclineIn(deps.prisma, ids.customerId, ids.address ?? null, deps.declineWindowSeconds, card).catch(
    (err: unknown) =>
      // A brake that could not count is an operator's matter; the outcome stands.
      deps.log?.("decline_count_error", {
        alarm: true,
        customerId: ids.customerId,
        error: err instanceof Error ? err.message : String(err),
      }),
  );
}

/** Whether `attempt` has a record: a retry, a duplicate or a replay, which admission does not limit. */
export async function attemptKnown(
  deps: Pick<CheckoutDeps, "idempotency">,
  attempt: CheckoutAttempt,
): Promise<boolean> {
  return (await deps.idempotency.find(attempt.scope)) !== null;
}

/** Past its deadline, an attempt that never got as far as an order: nothing was charged, and the key only replays. */
export function recordExpired(deps: CheckoutDeps, owner: Ownership): Promise<boolean> {
  return deps.idempotency.finish(owner, { status: "failed", response: responseFor(null, attemptExpired(null)) });
}

/**
 * A SEPA debit needs the customer's acceptance of the mandate: the shop
 * gives it, online, from the request that pays (its address and user agent).
 */
function mandateOf(input: { body: CheckoutRequest; address?: string; userAgent?: string }): MandateAcceptance | null {
  if (input.body.paymentMethodType !== "sepa_debit" || !input.address) return null;
  return { ipAddress: input.address, userAgent: input.userAgent ?? "unknown" };
}

export function returnUrlFor(origin: string, key: string): string {
  return `${origin}${RETURN_PATH}?key=${encodeURIComponent(key)}`;
}

function responseFor(order: { id: string } | null, outcome: FinalOutcome): StoredResponse {
  const orderId = order?.id ?? null;
  switch (outcome.kind) {
    case "succeeded":
      return stored(
        201,
        {
          orderId,
          status: "paid",
          // What the intent charged: an attempt that adopted its intent after a price change shows the price paid.
          amountCents: outcome.amountCents,
          currency: outcome.currency,
          paymentIntentId: outcome.paymentIntentId,
        } satisfies PaidAnswer,
        { Location: `/orders/${orderId}` },
      );
    case "declined":
      return stored(402, {
        error: "card_declined",
        ...shopperDecline(outcome.declineCode, outcome.message),
        orderId,
      } satisfies DeclinedAnswer);
    case "failed":
      return stored(402, {
        error: outcome.error,
        message: outcome.message,
        code: outcome.code,
        orderId,
      } satisfies FailedAnswer);
  }
}

/** The body is serialised once, here: the first answer and every replay send these bytes (answers.ts). */
function stored(
  statusCode: 201 | 202 | 402,
  body: CheckoutAnswer,
  headers: Record<string, string> = {},
): StoredResponse {
  return { statusCode, body: JSON.stringify(body), headers };
}

async function answerAsDuplicate(
  deps: CheckoutDeps,
  input: { customerId: string; key: string },
): Promise<CheckoutResult> {
  const state = await deps.idempotency.find(knownAttempt(input.customerId, input.key).scope);
  if (state?.response) return { kind: "response", response: state.response, replayed: true };
  return { kind: "in_progress", retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
}
