import { cardFor } from "./cards";
import type { Charge, LaterRefund, RefundReason } from "./charges";
import { createdRange, within } from "./created-range";
import { emit, emitLater, notExecuted, type Ctx, type Outcome } from "./context";
import type { Params } from "./form";
import { limitError, limitOf } from "./payment-intents";
import { page } from "./ledger";
import { formatAmount } from "./money";
import { invalidRequest, ok, resourceMissing, type ApiResponse } from "./responses";
import { isIntegerText, unknownParam } from "./validation";

// `/v1/refunds`: full or partial refunds of an intent's successful charge.

/** How long a refund of `pm_card_refundFail` or `pm_card_pendingRefund` takes to settle: "later", without a clock to wait on. */
export const REFUND_SETTLES_AFTER_MS = 200;

const CREATE_PARAMS = new Set(["payment_intent", "charge", "amount", "reason", "metadata", "expand"]);
const LIST_PARAMS = new Set(["payment_intent", "charge", "limit", "starting_after", "expand", "created"]);
const REASONS: readonly string[] = ["duplicate", "fraudulent", "requested_by_customer"];

export function createRefund(ctx: Ctx, params: Params): Outcome {
  const rejected = unknownParam(params, CREATE_PARAMS) ?? refundParamsError(params);
  if (rejected) return notExecuted(rejected);
  const found = chargeToRefund(ctx, params);
  if ("error" in found) return notExecuted(found.error);
  const { charge } = found;
  const remaining = charge.amount - charge.amount_refunded;
  if (remaining <= 0) {
    return notExecuted(
      invalidRequest(`Charge ${charge.id} has already been refunded.`, { code: "charge_already_refunded" }),
    );
  }
  const amount = params.amount === undefined ? remaining : Number(params.amount);
  if (amount > remaining) {
    return notExecuted(
      invalidRequest(
        `Refund amount (${formatAmount(amount, charge.currency)}) is greater than unrefunded amount on charge (${formatAmount(remaining, charge.currency)})`,
        { param: "amount" },
      ),
    );
  }
  const metadata =
    typeof params.metadata === "object" && !Array.isArray(params.metadata)
      ? (params.metadata as Record<string, string>)
      : {};
  const token = ctx.ledger.paymentMethods.tokenOf(charge.payment_method);
  const card = token === undefined ? null : cardFor(token);
  const { refund, later } = ctx.ledger.charges.refund(
    charge,
    amount,
    (params.reason as RefundReason | undefined) ?? null,
    { ...metadata },
    card?.kind === "succeeds" ? card.refund : "succeeds",
  );
  ctx.stats.refunds += 1;
  emit(ctx, "refund.created", refund);
  emit(ctx, "charge.refunded", charge);
  if (later) ctx.later.run(REFUND_SETTLES_AFTER_MS, () => settle(ctx, later));
  return { response: ok(structuredClone(refund)), executed: true, charge: null };
}

/**
 * The card network's later answer, with the events Stripe sends for it:
 * `refund.updated` and `charge.refund.updated` for every change, and
 * `refund.failed` when the money could not go back (it returns to the account).
 */
function settle(ctx: Ctx, later: NonNullable<LaterRefund>): void {
  ctx.ledger.charges.settleLater(later);
  if (later.becomes === "failed") ctx.stats.refundsFailed += 1;
  emitLater(ctx, "refund.updated", later.refund);
  if (later.becomes === "failed") emitLater(ctx, "refund.failed", later.refund);
  emitLater(ctx, "charge.refund.updated", later.refund);
}

export function listRefunds(ctx: Ctx, params: Params): ApiResponse {
  const rejected = unknownParam(params, LIST_PARAMS) ?? limitError(params.limit);
  if (rejected) return rejected;
  const created = createdRange(params.created);
  if (typeof created === "string") return invalidRequest(created, { param: "created" });
  const filter = {
    ...(typeof params.payment_intent === "string" ? { paymentIntent: params.payment_intent } : {}),
    ...(typeof params.charge === "string" ? { charge: params.charge } : {}),
  };
  const after = typeof params.starting_after === "string" ? params.starting_after : undefined;
  const refunds = ctx.ledger.charges.listRefunds(filter).filter((refund) => within(created, refund.created));
  const found = page(refunds, limitOf(params.limit), after);
  if (!found) return resourceMissing("refund", after ?? "", "starting_after");
  return ok({ object: "list", url: "/v1/refunds", has_more: found.hasMore, data: found.data });
}

export function retrieveRefund(ctx: Ctx, id: string, params: Params): ApiResponse {
  const rejected = unknownParam(params, new Set(["expand"]));
  if (rejected) return rejected;
  const refund = ctx.ledger.charges.listRefunds({}).find((item) => item.id === id);
  return refund ? ok(refund) : resourceMissing("refund", id, "id");
}

export function retrieveCharge(ctx: Ctx, id: string, params: Params): ApiResponse {
  const rejected = unknownParam(params, new Set(["expand"]));
  if (rejected) return rejected;
  const charge = ctx.ledger.charges.get(id);
  return charge ? ok(charge) : resourceMissing("charge", id, "id");
}

function refundParamsError(params: Params): ApiResponse | null {
  if (params.payment_intent === undefined && params.charge === undefined) {
    return invalidRequest(
      "One of the following params should be provided for this request: payment_intent or charge.",
      {
        code: "parameter_missing",
      },
    );
  }
  if (params.amount !== undefined && (!isIntegerText(params.amount) || Number(params.amount) < 1)) {
    return invalidRequest(`Invalid positive integer: ${String(params.amount)}`, {
      code: "parameter_invalid_integer",
      param: "amount",
    });
  }
  if (params.reason !== undefined && (typeof params.reason !== "string" || !REASONS.includes(params.reason))) {
    return invalidRequest(`Invalid reason: must be one of ${REASONS.join(", ")}`, { param: "reason" });
  }
  return null;
}

/** The charge a refund applies to, or the error when there is none that succeeded. */
function chargeToRefund(ctx: Ctx, params: Params): { charge: Charge } | { error: ApiResponse } {
  if (typeof params.charge === "string") {
    const charge = ctx.ledger.charges.get(params.charge);
    if (!charge)
      return {
        error: invalidRequest(`No such charge: '${params.charge}'`, { code: "resource_missing", param: "charge" }),
      };
    if (charge.status !== "succeeded")
      return {
        error: invalidRequest(`Charge ${charge.id} has not succeeded and cannot be refunded.`, { param: "charge" }),
      };
    return { charge };
  }
  const id = String(params.payment_intent);
  const intent = ctx.ledger.get(id);
  if (!intent)
    return {
      error: invalidRequest(`No such payment_intent: '${id}'`, { code: "resource_missing", param: "payment_intent" }),
    };
  const charge =
    intent.status === "succeeded" && intent.latest_charge ? ctx.ledger.charges.get(intent.latest_charge) : undefined;
  if (!charge) {
    return {
      error: invalidRequest(`This PaymentIntent (${id}) does not have a successful charge to refund.`, {
        param: "payment_intent",
      }),
    };
  }
  return { charge };
}
