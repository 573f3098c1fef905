"use client";

import { useState } from "react";
import { MAX_QUANTITY } from "@/lib/checkout-client/cart";

/**
 * A number field that only commits whole quantities in 1..99. While the
 * shopper is mid-edit (an empty field) the cart keeps its last good value.
 */
export function QuantityInput(props: {
  id: string;
  label: string;
  value: number;
  disabled: boolean;
  onChange: (n: number) => void;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  return (
    <>
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
        onChange={(event) => {
          const next = Number(event.target.value);
          const valid = event.target.value !== "" && Number.isInteger(next) && next >= 1 && next <= MAX_QUANTITY;
          setDraft(valid ? null : event.target.value);
          if (valid) props.onChange(next);
        }}
        onBlur={() => setDraft(null)}
      />
    </>
  );
}
