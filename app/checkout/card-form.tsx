"use client";

import type { Stripe } from "@stripe/stripe-js";
import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { useMemo, type FormEvent } from "react";
import type { TokenResult } from "@/lib/checkout-client/use-checkout";

interface CardFormProps {
  stripe: Promise<Stripe | null>;
  amountCents: number;
  currency: string;
  total: string;
  locked: boolean;
  /** Why Pay is held (a refused quantity in the cart); null when it is not. */
  held: string | null;
  pending: boolean;
  /** The methods the shop takes (PAYMENT_METHOD_TYPES): the element's tabs. */
  paymentMethodTypes: readonly string[];
  /**
   * Pay was pressed: `createToken` turns the element's card into a
   * ConfirmationToken when a new attempt needs one; `receiptEmail`, where
   * Stripe emails the receipt (empty: no receipt).
   */
  onPay: (createToken: () => Promise<TokenResult>, receiptEmail: string | undefined) => void;
}

/**
 * The card, in Stripe's Payment Element (deferred intent: the cart's amount
 * and currency, the methods the shop takes). The card lives in Stripe's iframe: this page
 * only ever holds the ConfirmationToken Stripe.js makes of it.
 */
export function CardForm(props: CardFormProps) {
  const options = useMemo(
    () => ({
      mode: "payment" as const,
      amount: props.amountCents,
      currency: props.currency,
      allowedPaymentMethodTypes: [...props.paymentMethodTypes],
    }),
    [props.amountCents, props.currency, props.paymentMethodTypes],
  );
  return (
    <Elements stripe={props.stripe} options={options}>
      <PayForm {...props} />
    </Elements>
  );
}

function PayForm({ total, locked, held, pending, onPay }: CardFormProps) {
  const stripe = useStripe();
  const elements = useElements();

  const createToken = async (): Promise<TokenResult> => {
    if (!stripe || !elements)
      return { kind: "refused", code: "loading", message: "The card form is still loading.", cardError: false };
    // Field errors (an incomplete number, an expiry in the past) are the element's to show.
    const submitted = await elements.submit();
    if (submitted.error) return { kind: "incomplete" };
    const made = await stripe.createConfirmationToken({ elements });
    if (made.error)
      return {
        kind: "refused",
        code: made.error.decline_code ?? made.error.code ?? made.error.type,
        message: made.error.message ?? "The card could not be used.",
        cardError: made.error.type === "card_error",
      };
    const type = made.confirmationToken.payment_method_preview.type;
    return {
      kind: "token",
      confirmationToken: made.confirmationToken.id,
      paymentMethodType: type === "sepa_debit" || type === "ideal" || type === "bancontact" ? type : "card",
    };
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const email = new FormData(event.currentTarget).get("receipt-email");
    onPay(createToken, typeof email === "string" && email.trim() ? email.trim() : undefined);
  };
  return (
    <form onSubmit={onSubmit} className="pay-form">
      <div className="field">
        <label htmlFor="receipt-email">
          Email for your receipt <span className="muted">(optional)</span>
        </label>
        <input
          id="receipt-email"
          name="receipt-email"
          type="email"
          autoComplete="email"
          maxLength={254}
          readOnly={locked}
          placeholder="you@example.com"
        />
      </div>
      <div className="card-field">
        <PaymentElement options={{ layout: "tabs", readOnly: locked }} />
      </div>
      <p className="total">
        <span>Total</span> <strong>{total}</strong>
      </p>
      <button
        type="submit"
        className="pay-button"
        disabled={pending || locked || held !== null}
        aria-describedby={held ? "pay-held" : undefined}
      >
        Pay {total}
      </button>
      {held && (
        <p id="pay-held" className="field-error">
          {held}
        </p>
      )}
    </form>
  );
}
