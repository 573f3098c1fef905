"use client";

import { useState } from "react";
import { MAX_QUANTITY } from "@/lib/checkout-client/cart";

/**
 * A number field that only commits whole quantities in 1..99. Anything else
 * the shopper types is refused where they typed it, with a message, and stays
 * on screen (the cart is never quietly changed to a number they did not
 * choose); `onInvalid` tells the page, which holds Pay until it is fixed.
 * While the field is empty mid-edit the cart keeps its last good value.
 */
export function QuantityInput(props: {
  id: string;
  label: string;
  value: number;
  disabled: boolean;
  onChange: (n: number) => void;
  onInvalid: (invalid: boolean) => void;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const refused = draft !== null && draft !== "";
  const errorId = `${props.id}-error`;
  const keep = (value: string | null) => {
    setDraft(value);
    props.onInvalid(value !== null && value !== "");
  };
  return (
    <span className="quantity-field">
      <label htmlFor={props.id} className="visually-hidden">
        {props.label}
      </label>
      <input
        id={props.id}
        className="quantity"
        type="number"
        inputMode="numeric"
        min={1}
        max={MAX_QUANTITY}
        value={draft ?? String(props.value)}
        disabled={props.disabled}
        aria-invalid={refused || undefined}
        aria-describedby={refused ? errorId : undefined}
        onChange={(event) => {
          const next = Number(event.target.value);
          const valid = event.target.value !== "" && Number.isInteger(next) && next >= 1 && next <= MAX_QUANTITY;
          keep(valid ? null : event.target.value);
          if (valid) props.onChange(next);
        }}
        onBlur={() => {
          if (draft === "") keep(null);
        }}
      />
      {refused && (
        <span id={errorId} role="alert" className="field-error">
          Choose 1 to {MAX_QUANTITY}.
        </span>
      )}
    </span>
  );
}
