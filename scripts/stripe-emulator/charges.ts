import { randomId, unixSeconds } from "./ids";

/** Stripe's Charge, reduced to what refunds and `charge.refunded` events show. */
export interface Charge {
  id: string;
  object: "charge";
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  captured: boolean;
  created: number;
  currency: string;
  failure_code: string | null;
  failure_message: string | null;
  livemode: false;
  metadata: Record<string, string>;
  paid: boolean;
  payment_intent: string;
  payment_method: string;
  refunded: boolean;
  status: "succeeded" | "failed";
}

export type RefundReason = "duplicate" | "fraudulent" | "requested_by_customer";

export interface Refund {
  id: string;
  object: "refund";
  amount: number;
  charge: string;
  created: number;
  currency: string;
  metadata: Record<string, string>;
  payment_intent: string;
  reason: RefundReason | null;
  status: "succeeded";
}

/** Charges and refunds, newest first, so that a test can count both per intent. */
export class ChargeBook {
  private readonly charges = new Map<string, Charge>();
  private readonly refunds: Refund[] = [];

  record(input: {
    amount: number;
    currency: string;
    paymentIntent: string;
    paymentMethod: string;
    metadata: Record<string, string>;
    failure: { code: string; message: string } | null;
  }): Charge {
    const succeeded = input.failure === null;
    const charge: Charge = {
      id: randomId("ch_"),
      object: "charge",
      amount: input.amount,
      amount_captured: succeeded ? input.amount : 0,
      amount_refunded: 0,
      captured: succeeded,
      created: unixSeconds(),
      currency: input.currency,
      failure_code: input.failure?.code ?? null,
      failure_message: input.failure?.message ?? null,
      livemode: false,
      metadata: { ...input.metadata },
      paid: succeeded,
      payment_intent: input.paymentIntent,
      payment_method: input.paymentMethod,
      refunded: false,
      status: succeeded ? "succeeded" : "failed",
    };
    this.charges.set(charge.id, charge);
    return charge;
  }

  get(id: string): Charge | undefined {
    return this.charges.get(id);
  }

  refund(charge: Charge, amount: number, reason: RefundReason | null, metadata: Record<string, string>): Refund {
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded >= charge.amount;
    const refund: Refund = {
      id: randomId("re_"),
      object: "refund",
      amount,
      charge: charge.id,
      created: unixSeconds(),
      currency: charge.currency,
      metadata,
      payment_intent: charge.payment_intent,
      reason,
      status: "succeeded",
    };
    this.refunds.unshift(refund);
    return refund;
  }

  listRefunds(filter: { paymentIntent?: string; charge?: string }): Refund[] {
    return this.refunds.filter(
      (refund) =>
        (filter.paymentIntent === undefined || refund.payment_intent === filter.paymentIntent) &&
        (filter.charge === undefined || refund.charge === filter.charge),
    );
  }
}
