import type { Decline, RefundBehaviour } from "./cards";
import { randomId, unixSeconds } from "./ids";
import type { CardFacts } from "./ledger";

/** What Radar and the issuer said about a charge, as on Stripe's Charge. */
export interface ChargeOutcome {
  advice_code: null;
  network_advice_code: null;
  network_decline_code: null;
  network_status: "approved_by_network" | "declined_by_network" | "not_sent_to_network";
  reason: string | null;
  risk_level: "normal" | "highest";
  seller_message: string;
  type: "authorized" | "issuer_declined" | "blocked";
}

/** A card charge's `payment_method_details`, as Stripe fills it: the card's facts and what the network said. */
export interface CardPaymentDetails {
  type: "card";
  card: {
    amount_authorized: number | null;
    authorization_code: string | null;
    brand: string;
    checks: { address_line1_check: null; address_postal_code_check: null; cvc_check: "pass" | null };
    country: string;
    electronic_commerce_indicator: null;
    exp_month: number;
    exp_year: number;
    fingerprint: string;
    funding: string;
    installments: null;
    last4: string;
    mandate: null;
    network: string;
    network_token: { used: false };
    network_transaction_id: string | null;
    regulated_status: null;
    three_d_secure: null;
    transaction_link_id: null;
    wallet: null;
  };
}

/** Stripe's Charge: every field stripe-node's types declare always present, those not modelled null. */
export interface Charge {
  id: string;
  object: "charge";
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  application: null;
  application_fee: null;
  application_fee_amount: null;
  balance_transaction: string | null;
  billing_details: { address: null; email: null; name: null; phone: null; tax_id: null };
  calculated_statement_descriptor: string;
  captured: boolean;
  created: number;
  currency: string;
  customer: null;
  description: null;
  disputed: false;
  failure_balance_transaction: null;
  failure_code: string | null;
  failure_message: string | null;
  fraud_details: Record<string, never>;
  livemode: false;
  metadata: Record<string, string>;
  on_behalf_of: null;
  outcome: ChargeOutcome;
  paid: boolean;
  payment_intent: string;
  payment_method: string;
  payment_method_details: CardPaymentDetails;
  receipt_email: null;
  receipt_number: null;
  receipt_url: null;
  refunded: boolean;
  review: null;
  shipping: null;
  source: null;
  source_transfer: null;
  statement_descriptor: null;
  statement_descriptor_suffix: null;
  status: "succeeded" | "failed";
  transfer_data: null;
  transfer_group: null;
}

export type RefundReason = "duplicate" | "fraudulent" | "requested_by_customer";

/** Stripe's Refund (card refunds: `pending`, `succeeded` or `failed`). */
export interface Refund {
  id: string;
  object: "refund";
  amount: number;
  balance_transaction: string;
  charge: string;
  created: number;
  currency: string;
  customer: null;
  customer_account: null;
  /** Set once the refund failed: the balance transaction giving the money back to the account. */
  failure_balance_transaction?: string;
  /** Set once the refund failed; for `pm_card_refundFail`, `expired_or_canceled_card`. */
  failure_reason?: string;
  metadata: Record<string, string>;
  payment_intent: string;
  payment_method: string;
  /** Only while `pending`. */
  pending_reason?: "processing";
  reason: RefundReason | null;
  receipt_number: null;
  source_transfer_reversal: null;
  status: "pending" | "succeeded" | "failed";
  transfer_reversal: null;
}

/** What becomes of a refund later, asynchronously, as the card network answers. */
export type LaterRefund = { refund: Refund; charge: Charge; becomes: "succeeded" | "failed" } | null;

/** Charges and refunds, newest first, so that a test can count both per intent. */
function cardDetails(card: CardFacts, authorized: number | null, blocked: boolean): CardPaymentDetails {
  return {
    type: "card",
    card: {
      amount_authorized: authorized,
      authorization_code: authorized === null ? null : randomId("", 6).toUpperCase(),
      brand: card.brand,
      // A charge Radar blocked never reached the issuer, so nothing was checked.
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: blocked ? null : "pass" },
      country: card.country,
      electronic_commerce_indicator: null,
      exp_month: card.exp_month,
      exp_year: card.exp_year,
      fingerprint: card.fingerprint,
      funding: card.funding,
      installments: null,
      last4: card.last4,
      mandate: null,
      network: card.brand,
      network_token: { used: false },
      network_transaction_id: blocked ? null : randomId("", 15),
      regulated_status: null,
      three_d_secure: null,
      transaction_link_id: null,
      wallet: null,
    },
  };
}

export class ChargeBook {
  private readonly charges = new Map<string, Charge>();
  private readonly refunds: Refund[] = [];

  record(input: {
    amount: number;
    currency: string;
    paymentIntent: string;
    paymentMethod: string;
    /** The card charged (its PaymentMethod's), for `payment_method_details`. */
    card: CardFacts;
    metadata: Record<string, string>;
    failure: (Decline & { blocked: boolean }) | null;
    /** Unix seconds; now unless the charge is history (see history.ts). */
    created?: number;
  }): Charge {
    const { failure } = input;
    const succeeded = failure === null;
    const charge: Charge = {
      id: randomId("ch_"),
      object: "charge",
      amount: input.amount,
      amount_captured: succeeded ? input.amount : 0,
      amount_refunded: 0,
      application: null,
      application_fee: null,
      application_fee_amount: null,
      balance_transaction: succeeded ? randomId("txn_") : null,
      billing_details: { address: null, email: null, name: null, phone: null, tax_id: null },
      calculated_statement_descriptor: "STRIPE EMULATOR",
      captured: succeeded,
      created: input.created ?? unixSeconds(),
      currency: input.currency,
      customer: null,
      description: null,
      disputed: false,
      failure_balance_transaction: null,
      failure_code: failure?.code ?? null,
      failure_message: failure?.message ?? null,
      fraud_details: {},
      livemode: false,
      metadata: { ...input.metadata },
      on_behalf_of: null,
      outcome: outcomeOf(failure),
      paid: succeeded,
      payment_intent: input.paymentIntent,
      payment_method: input.paymentMethod,
      payment_method_details: cardDetails(
        input.card,
        succeeded ? input.amount : null,
        failure !== null && failure.blocked,
      ),
      receipt_email: null,
      receipt_number: null,
      receipt_url: null,
      refunded: false,
      review: null,
      shipping: null,
      source: null,
      source_transfer: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      status: succeeded ? "succeeded" : "failed",
      transfer_data: null,
      transfer_group: null,
    };
    this.charges.set(charge.id, charge);
    return charge;
  }

  get(id: string): Charge | undefined {
    return this.charges.get(id);
  }

  /**
   * Refunds (part of) a charge. As at Stripe, the money counts as refunded on
   * the charge at once; `behaviour` (the card's) says what the refund
   * becomes later: `pending` first then `succeeded`, or `succeeded` first
   * then `failed` (see settleLater).
   */
  refund(
    charge: Charge,
    amount: number,
    reason: RefundReason | null,
    metadata: Record<string, string>,
    behaviour: RefundBehaviour,
  ): { refund: Refund; later: LaterRefund } {
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded >= charge.amount;
    const refund: Refund = {
      id: randomId("re_"),
      object: "refund",
      amount,
      balance_transaction: randomId("txn_"),
      charge: charge.id,
      created: unixSeconds(),
      currency: charge.currency,
      customer: null,
      customer_account: null,
      metadata,
      payment_intent: charge.payment_intent,
      payment_method: charge.payment_method,
      ...(behaviour === "pending_then_succeeds" ? { pending_reason: "processing" as const } : {}),
      reason,
      receipt_number: null,
      source_transfer_reversal: null,
      status: behaviour === "pending_then_succeeds" ? "pending" : "succeeded",
      transfer_reversal: null,
    };
    this.refunds.unshift(refund);
    const later: LaterRefund =
      behaviour === "succeeds"
        ? null
        : { refund, charge, becomes: behaviour === "fails_later" ? "failed" : "succeeded" };
    return { refund, later };
  }

  /** The network's later answer. A failed refund gives the money back to the account: the charge is unrefunded by its amount. */
  settleLater(later: NonNullable<LaterRefund>): void {
    const { refund, charge, becomes } = later;
    delete refund.pending_reason;
    refund.status = becomes;
    if (becomes === "failed") {
      refund.failure_reason = "expired_or_canceled_card";
      refund.failure_balance_transaction = randomId("txn_");
      charge.amount_refunded -= refund.amount;
      charge.refunded = charge.amount_refunded >= charge.amount;
    }
  }

  listRefunds(filter: { paymentIntent?: string; charge?: string }): Refund[] {
    return this.refunds.filter(
      (refund) =>
        (filter.paymentIntent === undefined || refund.payment_intent === filter.paymentIntent) &&
        (filter.charge === undefined || refund.charge === filter.charge),
    );
  }
}

function outcomeOf(failure: (Decline & { blocked: boolean }) | null): ChargeOutcome {
  const base = { advice_code: null, network_advice_code: null, network_decline_code: null } as const;
  if (!failure)
    return {
      ...base,
      network_status: "approved_by_network",
      reason: null,
      risk_level: "normal",
      seller_message: "Payment complete.",
      type: "authorized",
    };
  if (failure.blocked)
    return {
      ...base,
      network_status: "not_sent_to_network",
      reason: "highest_risk_level",
      risk_level: "highest",
      seller_message: "Stripe blocked this payment as too risky.",
      type: "blocked",
    };
  return {
    ...base,
    network_status: "declined_by_network",
    reason: failure.declineCode,
    risk_level: "normal",
    seller_message: "The bank did not return any further details with this decline.",
    type: "issuer_declined",
  };
}
