"use client";

import { createAttemptStore, sendUntilAnswered, tabStorage, type AttemptRecord } from "@checkout/idempotency/client";
import { useEffect, useMemo, useRef, useState } from "react";
import { formatMoney } from "@/lib/money";

/** Amount typed in the currency's major units ("12.50") as whole minor units, or null when it is not one. */
function minorUnits(text: string): number | null {
  const match = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return null;
  const cents = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  return cents > 0 ? cents : null;
}

/**
 * Refund all or part of what remains. A press is one attempt of the
 * package's attempt store (per tab, kept across a reload): a second press of
 * the same refund, a retry and a reload send the same key and bytes, polled
 * on 409 with the shop's backoff, so the server makes it once.
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
  const attempts = useMemo(
    () => createAttemptStore({ storage: tabStorage(), storageKey: `ops-refund:${orderId}` }),
    [orderId],
  );
  const noticeKey = `ops-refund-notice:${orderId}`;
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const sending = useRef<Promise<void> | null>(null);

  async function send(attempt: AttemptRecord) {
    setBusy(true);
    setMessage({ text: "Refunding…", error: false });
    try {
      const answer = await sendUntilAnswered({
        url: `/api/ops/orders/${orderId}/refunds`,
        key: attempt.key,
        bodyJson: attempt.bodyJson,
      });
      attempts.finish(attempt.key);
      let told: { text: string; error: boolean };
      const body = answer.body as { message?: string; amountCents?: number; status?: string; remainingCents?: number };
      if (answer.status === 201)
        told = {
          text: `Refund of ${formatMoney(body.amountCents ?? 0, currency)} ${body.status === "failed" ? "failed" : "made"}; ${formatMoney(body.remainingCents ?? 0, currency)} remains.`,
          error: body.status === "failed",
        };
      else told = { text: body.message ?? `Refused (${answer.status}).`, error: true };
      // The whole page again, from the server: the answer shows above the order as it now stands.
      sessionStorage.setItem(noticeKey, JSON.stringify(told));
      window.location.reload();
    } catch {
      // The attempt stays open: pressing again (or reloading) resends the same key and learns what became of it.
      setMessage({
        text: "No answer from the shop yet. Press Refund again to ask; it will not refund twice.",
        error: true,
      });
    } finally {
      setBusy(false);
    }
  }

  // The answer the page reloaded after (tab storage, known only once hydrated), and a press the page
  // never heard back from (a reload, a closed connection), asked again under its key.
  useEffect(() => {
    const told = sessionStorage.getItem(noticeKey);
    sessionStorage.removeItem(noticeKey);
    const open = attempts.current();
    void Promise.resolve().then(() => {
      if (told) setMessage(JSON.parse(told) as { text: string; error: boolean });
      if (open && !sending.current)
        sending.current = send(open).finally(() => {
          sending.current = null;
        });
    });
    // Once per page: send and attempts belong to this render's order.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [attempts]);

  function onSubmit(event: React.FormEvent) {
    event.preventDefault();
    if (sending.current) return; // a double click: the first press is the attempt
    const typed = amount.trim();
    const cents = typed === "" ? null : minorUnits(typed);
    if (typed !== "" && cents === null) {
      setMessage({ text: "Type an amount such as 12.50, or leave it empty to refund all that remains.", error: true });
      return;
    }
    const body: { amountCents?: number; reason?: string } = {};
    if (cents !== null) body.amountCents = cents;
    if (reason.trim()) body.reason = reason.trim();
    const attempt = attempts.begin(JSON.stringify(body));
    sending.current = send(attempt).finally(() => {
      sending.current = null;
    });
  }

  const status = (
    <p
      role="status"
      aria-live="polite"
      className={message?.error ? "notice-refund" : "muted"}
      data-testid="refund-message"
    >
      {message?.text ?? ""}
    </p>
  );
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
