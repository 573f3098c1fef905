"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { bodyOf, createAttemptStore, type AttemptStore, type CheckoutAttempt } from "./attempt-store";
import { sameItems } from "./cart";
import { CheckoutFailure } from "./checkout-failure";
import { checkoutMutation } from "./checkout-mutation";
import { isDefinitive, outcomeAfterFailure, refusalFrom, stateFromResult, type CheckoutState } from "./checkout-state";
import { MemoryStorage } from "./memory-storage";
import { attemptStatusQuery, ordersQuery, sessionQuery } from "./queries";
import type { CheckoutBody } from "./types";
import { currentCartItems, removePaidItems } from "./use-cart";

/**
 * Paying for a cart (docs/contract.md §4). Every press, retry and reload of one
 * attempt sends the same Idempotency-Key; retries are the mutation's own (see
 * checkout-mutation.ts); when they run out the shop is asked what happened
 * instead of trying a new key. On mount, an attempt a reload left open is resumed.
 */
export function useCheckout() {
  const client = useQueryClient();
  const [store] = useState(openAttemptStore);
  const [attempt, setAttempt] = useState<CheckoutAttempt | null>(null);
  const [outcome, setOutcome] = useState<CheckoutState>({ kind: "idle" });
  const startedAt = useRef(0);
  // eslint-disable-next-line react-hooks/refs -- the ref is read when a retry is decided, never during render
  const [options] = useState(() => checkoutMutation({ startedAt: () => startedAt.current }));

  const settle = (settled: CheckoutAttempt, next: CheckoutState) => {
    if (isDefinitive(next)) {
      store.finish(settled.key);
      setAttempt((open) => (open?.key === settled.key ? null : open));
    }
    if (next.kind === "paid") {
      removePaidItems(next.order.orderId, bodyOf(settled).items);
      void client.invalidateQueries({ queryKey: ordersQuery.queryKey });
    }
    setOutcome(next);
  };

  const askShop = (open: CheckoutAttempt) => () => client.fetchQuery(attemptStatusQuery(open.key));

  const mutation = useMutation({
    ...options,
    onSuccess: (result, open) => settle(open, stateFromResult(result)),
    onError: (error, open) => {
      if (error instanceof CheckoutFailure && error.status === 401) client.removeQueries({ queryKey: sessionQuery.queryKey });
      if (!refusalFrom(error)) setOutcome({ kind: "checking" });
      void outcomeAfterFailure(error, askShop(open)).then((next) => settle(open, next));
    },
  });
  const { mutate } = mutation;

  const start = useCallback(
    (open: CheckoutAttempt) => {
      startedAt.current = Date.now();
      setAttempt(open);
      setOutcome({ kind: "idle" });
      mutate(open);
    },
    [mutate],
  );

  // A reload mid-payment leaves the attempt open in sessionStorage: carry on with it.
  // If the cart has changed since (another tab), first ask the shop: resending an
  // attempt it never received would pay for a cart the shopper no longer wants.
  const resumed = useRef(false);
  useEffect(() => {
    if (resumed.current) return;
    resumed.current = true;
    const open = store.current();
    if (!open) return;
    // eslint-disable-next-line react-hooks/set-state-in-effect -- resuming from sessionStorage, an external system, once after mount
    if (sameItems(bodyOf(open).items, currentCartItems())) return start(open);
    setAttempt(open);
    setOutcome({ kind: "checking" });
    void outcomeAfterFailure(null, askShop(open)).then((next) => {
      // Recorded with this body: resending can only finish that same payment.
      if (next.kind === "processing") return start(open);
      if (next.kind !== "not_recorded") return settle(open, next);
      store.finish(open.key);
      setAttempt(null);
      setOutcome({ kind: "idle" });
    });
  // eslint-disable-next-line react-hooks/exhaustive-deps -- settle and askShop are read at resume time only
  }, [store, start]); // once per mount: `resumed` also absorbs React's development double run

  return {
    state: mutation.isPending ? ({ kind: "paying", retry: mutation.failureCount } as const) : outcome,
    /** The attempt being paid or awaiting an outcome, if any. */
    attempt,
    isPending: mutation.isPending,
    /**
     * Pays for this cart and card: the open attempt if it is for exactly these,
     * otherwise a new one. A second press while paying sends the same key, so
     * it is answered as a duplicate; the disabled button only saves a request.
     */
    pay: (body: CheckoutBody) => start(store.begin(body)),
    /** Asks again about the open attempt, with its key: never a new payment. */
    checkAgain: () => {
      const open = store.current();
      if (open) start(open);
    },
  };
}

function openAttemptStore(): AttemptStore {
  try {
    return createAttemptStore(window.sessionStorage);
  } catch {
    return createAttemptStore(new MemoryStorage()); // no window (server render) or storage blocked
  }
}
