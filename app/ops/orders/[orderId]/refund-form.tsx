"use client";

import { useState } from "react";
import { formatMoney } from "@/lib/money";
import { PressMessage, useOperatorPress } from "./operator-press";

/** Amount typed in the currency's major units ("12.50") as whole minor units, or null when it is not one. */
function minorUnits(text: string): number | null {
  const match = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return null;
  const cents = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  return cents > 0 ? cents : null;
}

/**
 * Refund all or part of what remains, once however often it is pressed
 * (./operator-press.tsx).
 */
export function RefundForm({
  orderId,
  currency,
  remainingCents,
}: {
  orderId: string;
  currency: string;
  remainingCents: number;
}) {
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const { busy, message, setMessage, pressing, press } = useOperatorPress({
    orderId,
    action: "refunds",
    working: "Refunding…",
    noAnswer: "No answer from the shop yet. Press Refund again to ask; it will not refund twice.",
    tell: (answer) => {
      const body = answer.body as { message?: string; amountCents?: number; status?: string; remainingCents?: number };
      if (answer.status !== 201) return { text: body.message ?? `Refused (${answer.status}).`, error: true };
      return {
        text: `Refund of ${formatMoney(body.amountCents ?? 0, currency)} ${body.status === "failed" ? "failed" : "made"}; ${formatMoney(body.remainingCents ?? 0, currency)} remains.`,
        error: body.status === "failed",
      };
    },
  });

  function onSubmit(event: React.FormEvent) {
    event.preventDefault();
    if (pressing()) return;
    const typed = amount.trim();
    const cents = typed === "" ? null : minorUnits(typed);
    if (typed !== "" && cents === null) {
      setMessage({ text: "Type an amount such as 12.50, or leave it empty to refund all that remains.", error: true });
      return;
    }
    const body: { amountCents?: number; reason?: string } = {};
    if (cents !== null) body.amountCents = cents;
    if (reason.trim()) body.reason = reason.trim();
    press(body);
  }

  const status = <PressMessage message={message} testId="refund-message" />;
  if (remainingCents === 0)
    return (
      <section className="ops-refund" aria-labelledby="refund-title">
        <h2 id="refund-title">Refund</h2>
        <p>Nothing remains to refund.</p>
        {status}
      </section>
    );
  return (
    <form className="ops-refund" onSubmit={onSubmit} aria-labelledby="refund-title">
      <h2 id="refund-title">Refund</h2>
      <p className="muted">
        Up to {formatMoney(remainingCents, currency)}; leave the amount empty to refund all of it.
      </p>
      <label htmlFor="refund-amount">Amount ({currency.toUpperCase()})</label>
      <input
        id="refund-amount"
        name="amount"
        inputMode="decimal"
        autoComplete="off"
        value={amount}
        onChange={(e) => setAmount(e.target.value)}
      />
      <label htmlFor="refund-reason">Reason</label>
      <input
        id="refund-reason"
        name="reason"
        maxLength={500}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
      />
      <button type="submit" aria-disabled={busy}>
        Refund
      </button>
      {status}
    </form>
  );
}
