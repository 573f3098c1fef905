"use client";

import { ProductThumbnail } from "@/app/_components/product-picture";
import type { PricedLine } from "@/lib/checkout-client/price-lines";
import { formatMoney } from "@/lib/money";
import { QuantityInput } from "./quantity-input";

/** The cart's lines with editable quantities; locked while the shop may be charging them. */
export function CartLines(props: {
  lines: PricedLine[];
  currency: string;
  locked: boolean;
  onQuantity: (sku: string, quantity: number) => void;
  /** A line's field holds a quantity that was refused (or no longer does). */
  onInvalid: (sku: string, invalid: boolean) => void;
}) {
  return (
    <ul className="cart-lines" aria-label="Items in your cart">
      {props.lines.map((line) => (
        <li key={line.sku} className="cart-line" aria-label={line.name}>
          <ProductThumbnail sku={line.sku} />
          <div className="cart-line-name">
            <strong>{line.name}</strong>
            <span className="muted">{formatMoney(line.unitPriceCents, props.currency)} each</span>
          </div>
          <div className="cart-line-controls">
            <QuantityInput
              id={`quantity-${line.sku}`}
              label={`Quantity of ${line.name}`}
              value={line.quantity}
              disabled={props.locked}
              onChange={(n) => props.onQuantity(line.sku, n)}
              onInvalid={(invalid) => props.onInvalid(line.sku, invalid)}
            />
            <button
              type="button"
              className="link-button"
              disabled={props.locked}
              onClick={() => {
                props.onInvalid(line.sku, false);
                props.onQuantity(line.sku, 0);
              }}
            >
              Remove<span className="visually-hidden"> {line.name}</span>
            </button>
          </div>
          <span className="cart-line-total">{formatMoney(line.lineCents, props.currency)}</span>
        </li>
      ))}
    </ul>
  );
}
