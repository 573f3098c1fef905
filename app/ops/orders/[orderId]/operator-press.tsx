"use client";

import { createAttemptStore, sendUntilAnswered, tabStorage, type AttemptRecord } from "@checkout/idempotency/client";
import { useEffect, useMemo, useRef, useState } from "react";

/** What the page tells the operator of a press. */
export interface Told {
  text: string;
  error: boolean;
}

/**
 * An operator's press on an order (a refund, a cancel) as one attempt of the
 * package's attempt store, per tab and kept across a reload: a second press,
 * a retry and a reload send the same key and bytes, polled on 409 with the
 * shop's backoff, so the server acts once. After an answer the whole page
 * reloads from the server, and the answer shows above the order as it now stands.
 */
export function useOperatorPress({
  orderId,
  action,
  working,
  noAnswer,
  tell,
}: {
  orderId: string;
  action: "refunds" | "cancel";
  /** Shown while the press is on its way. */
  working: string;
  /** Shown when the shop never answered: the attempt stays open. */
  noAnswer: string;
  /** The shop's answer, told. */
  tell: (answer: { status: number; body: unknown }) => Told;
}) {
  const name = action === "refunds" ? "refund" : "cancel";
  const attempts = useMemo(
    () => createAttemptStore({ storage: tabStorage(), storageKey: `ops-${name}:${orderId}` }),
    [name, orderId],
  );
  const noticeKey = `ops-${name}-notice:${orderId}`;
  const [message, setMessage] = useState<Told | null>(null);
  const [busy, setBusy] = useState(false);
  const sending = useRef<Promise<void> | null>(null);

  async function send(attempt: AttemptRecord) {
    setBusy(true);
    setMessage({ text: working, error: false });
    try {
      const answer = await sendUntilAnswered({
        url: `/api/ops/orders/${orderId}/${action}`,
        key: attempt.key,
        bodyJson: attempt.bodyJson,
      });
      attempts.finish(attempt.key);
      sessionStorage.setItem(noticeKey, JSON.stringify(tell(answer)));
      window.location.reload();
    } catch {
      // Pressing again (or reloading) resends the same key and learns what became of the attempt.
      setMessage({ text: noAnswer, error: true });
    } finally {
      setBusy(false);
    }
  }

  function sendOnce(attempt: AttemptRecord) {
    sending.current = send(attempt).finally(() => {
      sending.current = null;
    });
  }

  // The answer the page reloaded after (tab storage, known only once hydrated), and a press the page
  // never heard back from (a reload, a closed connection), asked again under its key.
  useEffect(() => {
    const told = sessionStorage.getItem(noticeKey);
    sessionStorage.removeItem(noticeKey);
    const open = attempts.current();
    void Promise.resolve().then(() => {
      if (told) setMessage(JSON.parse(told) as Told);
      if (open && !sending.current) sendOnce(open);
    });
    // Once per page: send and attempts belong to this render's order.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [attempts]);

  return {
    busy,
    message,
    setMessage,
    /** A double click is the first press's attempt. */
    pressing: () => sending.current !== null,
    press: (body: object) => sendOnce(attempts.begin(JSON.stringify(body))),
  };
}

/** The outcome of the last press, read out politely. */
export function PressMessage({ message, testId }: { message: Told | null; testId: string }) {
  return (
    <p role="status" aria-live="polite" className={message?.error ? "notice-refund" : "muted"} data-testid={testId}>
      {message?.text ?? ""}
    </p>
  );
}
