"use client";

import { createAttemptStore, sendUntilAnswered, tabStorage, type AttemptRecord } from "@checkout/idempotency/client";
import { useEffect, useMemo, useRef, useState } from "react";

/** Stripe's cancellation_reason values, as the operator reads them (lib/cancels/operator-cancel.ts). */
const REASONS: ReadonlyArray<readonly [string, string]> = [
  ["", "No reason given"],
  ["requested_by_customer", "Requested by the customer"],
  ["duplicate", "Duplicate"],
  ["fraudulent", "Fraudulent"],
  ["abandoned", "Abandoned"],
];

/**
 * Cancel a payment waiting for the shopper (`offered`). A press is one
 * attempt of the package's attempt store (per tab, kept across a reload): a
 * second press, a retry and a reload send the same key and bytes, polled on
 * 409 with the shop's backoff, so the server cancels once. Once the order
 * moved on, only the last press's outcome is shown.
 */
export function CancelForm({ orderId, offered }: { orderId: string; offered: boolean }) {
  const attempts = useMemo(
    () => createAttemptStore({ storage: tabStorage(), storageKey: `ops-cancel:${orderId}` }),
    [orderId],
  );
  const noticeKey = `ops-cancel-notice:${orderId}`;
  const [reason, setReason] = useState("");
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const sending = useRef<Promise<void> | null>(null);

  async function send(attempt: AttemptRecord) {
    setBusy(true);
    setMessage({ text: "Cancelling…", error: false });
    try {
      const answer = await sendUntilAnswered({
        url: `/api/ops/orders/${orderId}/cancel`,
        key: attempt.key,
        bodyJson: attempt.bodyJson,
      });
      attempts.finish(attempt.key);
      const body = answer.body as { message?: string; orderStatus?: string };
      const told =
        answer.status === 200
          ? {
              text:
                body.orderStatus === "failed"
                  ? "Payment cancelled at Stripe; the order failed and its checkout can be paid again."
                  : "Payment cancelled at Stripe; the order follows as soon as the shop settles it.",
              error: false,
            }
          : { text: body.message ?? `Refused (${answer.status}).`, error: true };
      // The whole page again, from the server: the answer shows above the order as it now stands.
      sessionStorage.setItem(noticeKey, JSON.stringify(told));
      window.location.reload();
    } catch {
      // The attempt stays open: pressing again (or reloading) resends the same key and learns what became of it.
      setMessage({
        text: "No answer from the shop yet. Press Cancel payment again to ask; it cancels once.",
        error: true,
      });
    } finally {
      setBusy(false);
    }
  }

  // The answer the page reloaded after, and a press the page never heard back from, asked again under its key.
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
    const attempt = attempts.begin(JSON.stringify(reason ? { reason } : {}));
    sending.current = send(attempt).finally(() => {
      sending.current = null;
    });
  }

  if (!offered)
    return message ? (
      <section className="ops-refund" aria-labelledby="cancel-title">
        <h2 id="cancel-title">Cancel the payment</h2>
        <CancelMessage message={message} />
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
      <CancelMessage message={message} />
    </form>
  );
}

/** The outcome of the last press, read out politely. */
function CancelMessage({ message }: { message: { text: string; error: boolean } | null }) {
  return (
    <p
      role="status"
      aria-live="polite"
      className={message?.error ? "notice-refund" : "muted"}
      data-testid="cancel-message"
    >
      {message?.text ?? ""}
    </p>
  );
}
