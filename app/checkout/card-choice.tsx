"use client";

import { TEST_CARDS } from "@/lib/checkout-client/types";

/** Stripe's test cards as a radio group: one succeeds, two are declined. */
export function CardChoice(props: { value: string; disabled: boolean; onChange: (id: string) => void }) {
  return (
    <fieldset className="card-choice" disabled={props.disabled}>
      <legend>Test card</legend>
      {TEST_CARDS.map((card) => (
        <label key={card.id} className="card-option">
          <input
            type="radio"
            name="payment-method"
            value={card.id}
            checked={props.value === card.id}
            onChange={() => props.onChange(card.id)}
          />
          <span>
            {card.label}
            <small className="muted">{card.hint}</small>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
