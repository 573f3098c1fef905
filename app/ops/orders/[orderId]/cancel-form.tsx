"use client";

import { useState } from "react";
import { PressMessage, useOperatorPress } from "./operator-press";

/** Stripe's cancellation_reason values, as the operator reads them (lib/cancels/operator-cancel.ts). */
const REASONS: ReadonlyArray<readonly [string, string]> = [
  ["", "No reason given"],
  ["requested_by_customer", "Requested by the customer"],
  ["duplicate", "Duplicate"],
  ["fraudulent", "Fraudulent"],
  ["abandoned", "Abandoned"],
];

/**
 * Cancel a payment waiting for the shopper (`offered`), once however often
 * it is pressed (./operator-press.tsx). Once the order moved on, only the
 * last press's outcome is shown.
 */
export function CancelForm({ orderId, offered }: { orderId: string; offered: boolean }) {
  const [reason, setReason] = useState("");
  const { busy, message, pressing, press } = useOperatorPress({
    orderId,
    action: "cancel",
    working: "Cancelling…",
    noAnswer: "No answer from the shop yet. Press Cancel payment again to ask; it cancels once.",
    tell: (answer) => {
      const body = answer.body as { message?: string; orderStatus?: string };
      if (answer.status !== 200) return { text: body.message ?? `Refused (${answer.status}).`, error: true };
      return {
        text:
          body.orderStatus === "failed"
            ? "Payment cancelled at Stripe; the order failed and its checkout can be paid again."
            : "Payment cancelled at Stripe; the order follows as soon as the shop settles it.",
        error: false,
      };
    },
  });

  function onSubmit(event: React.FormEvent) {
    event.preventDefault();
    if (!pressing()) press(reason ? { reason } : {});
  }

  if (!offered)
    return message ? (
      <section className="ops-refund" aria-labelledby="cancel-title">
        <h2 id="cancel-title">Cancel the payment</h2>
        <PressMessage message={message} testId="cancel-message" />
      </section>
    ) : null;
  return (
    <form className="ops-refund" onSubmit={onSubmit} aria-labelledby="cancel-title">
      <h2 id="cancel-title">Cancel the payment</h2>
      <p className="muted">The shopper has not finished paying. Stripe cancels it unless they finish first.</p>
      <label htmlFor="cancel-reason">Cancellation reason</label>
      <select id="cancel-reason" name="reason" value={reason} onChange={(e) => setReason(e.target.value)}>
        {REASONS.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      <button type="submit" aria-disabled={busy}>
        Cancel payment
      </button>
      <PressMessage message={message} testId="cancel-message" />
    </form>
  );
}
