"use client";

import type { Stripe } from "@stripe/stripe-js";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { bodyOf, createAttemptStore, mayResend, type AttemptStore, type CheckoutAttempt } from "./attempt-store";
import { authenticationReturnQuery, type ReturnOutcome } from "./authentication-return";
import { sameItems } from "./cart";
import { CheckoutFailure } from "./checkout-failure";
import { checkoutMutation } from "./checkout-mutation";
import {
  immediateOutcome,
  isDefinitive,
  outcomeAfterFailure,
  stateFromResult,
  type CheckoutState,
} from "./checkout-state";
import { MemoryStorage } from "./memory-storage";
import { attemptStatusQuery, ordersQuery, sessionQuery } from "./queries";
import type { CartItem } from "./types";

/** What making a ConfirmationToken from the Payment Element came to. */
export type TokenResult =
  | { kind: "token"; confirmationToken: string }
  /** The element showed what is wrong with a field: nothing to send, nothing to say. */
  | { kind: "incomplete" }
  /** Stripe refused the card, or could not be reached: nothing was sent to the shop. */
  | { kind: "refused"; code: string; message: string; cardError: boolean };
import { currentCartItems, removePaidItems } from "./use-cart";

/**
 * Paying for a cart (docs/contract.md §4). Every press, retry and reload of one
 * attempt sends the same Idempotency-Key; retries are the mutation's own (see
 * checkout-mutation.ts); when they run out the shop is asked what happened
 * instead of trying a new key. On mount, an attempt a reload left open is resumed
 * if it is young; an old one (RESEND_WINDOW_MS) is only read, never sent.
 */
export function useCheckout(stripeJs?: () => Promise<Stripe | null>) {
  const client = useQueryClient();
  const [store] = useState(openAttemptStore);
  const [attempt, setAttempt] = useState<CheckoutAttempt | null>(null);
  const [outcome, setOutcome] = useState<CheckoutState>({ kind: "idle" });
  const startedAt = useRef(0);
  // Only a press of Pay takes the shopper to their bank; a resumed attempt shows the way there.
  const pressed = useRef(false);
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

  /** Asks the shop what became of the attempt: a read, never a payment. */
  const readOutcome = (open: CheckoutAttempt, mayBeForgotten: boolean) => {
    setAttempt(open);
    setOutcome({ kind: "checking" });
    return outcomeAfterFailure(null, askShop(open), { mayBeForgotten });
  };

  /**
   * 3-D Secure in this page: Stripe.js shows the bank's challenge
   * (`handleNextAction`), then the shop is told, as the return page tells it
   * after a redirect, and answers the attempt's outcome.
   */
  const authenticateHere = async (open: CheckoutAttempt, clientSecret: string): Promise<CheckoutState> => {
    const stripe = await stripeJs?.();
    if (!stripe) return { kind: "authenticating", url: null };
    const handled = await stripe.handleNextAction({ clientSecret });
    const paymentIntent = handled.paymentIntent?.id ?? null;
    try {
      // As the return page reports it, retries included: the shop may be settling this
      // payment from Stripe's event at this moment (409), and asking again soon finds it settled.
      return stateAfterReturn(await client.fetchQuery(authenticationReturnQuery(open.key, paymentIntent)));
    } catch {
      return { kind: "unreachable" };
    }
  };

  // The attempt whose bank challenge is open. A second press of the same attempt answered 202
  // (its replay) joins that challenge rather than opening another over it; a replay arriving
  // after the challenge settled the attempt has nothing left to ask the shopper.
  const challenging = useRef<string | null>(null);

  const mutation = useMutation({
    ...options,
    onSuccess: (result, open) => {
      if (result.kind === "requires_action" && (challenging.current === open.key || store.current()?.key !== open.key))
        return;
      settle(open, stateFromResult(result));
      if (result.kind !== "requires_action") return;
      if (result.action.type === "use_stripe_sdk") {
        challenging.current = open.key;
        void authenticateHere(open, result.action.clientSecret)
          .finally(() => {
            if (challenging.current === open.key) challenging.current = null;
          })
          .then((next) => settle(open, next));
      } else if (pressed.current) window.location.assign(result.action.url);
    },
    onError: (error, open) => {
      if (error instanceof CheckoutFailure && error.status === 401)
        client.removeQueries({ queryKey: sessionQuery.queryKey });
      // A refusal, or a session that ended mid-attempt (the attempt stays open): nothing to ask.
      const immediate = immediateOutcome(error);
      if (immediate) return settle(open, immediate);
      setOutcome({ kind: "checking" });
      void outcomeAfterFailure(error, askShop(open), { mayBeForgotten: !mayResend(open) }).then((next) =>
        settle(open, next),
      );
    },
  });
  const { mutate } = mutation;
  // A press while the card is being turned into a token joins that press: the
  // same token, the same key, sent again (answered as a duplicate).
  const preparing = useRef<Promise<CheckoutAttempt | null> | null>(null);
  const [isPreparing, setPreparing] = useState(false);

  const start = useCallback(
    (open: CheckoutAttempt, byPress = false) => {
      startedAt.current = Date.now();
      pressed.current = byPress;
      setAttempt(open);
      setOutcome({ kind: "idle" });
      mutate(open);
    },
    [mutate],
  );

  // A reload mid-payment leaves the attempt open in sessionStorage: carry on with it.
  // If the cart has changed since (another tab), first ask the shop: resending an
  // attempt it never received would pay for a cart the shopper no longer wants.
  // An old attempt (a tab restored the next day) is only ever asked about: the
  // shop may have forgotten its key, and sending it would be a new charge.
  const resumed = useRef(false);
  useEffect(() => {
    if (resumed.current) return;
    resumed.current = true;
    const open = store.current();
    if (!open) return;
    const young = mayResend(open);
    // eslint-disable-next-line react-hooks/set-state-in-effect -- resuming from sessionStorage, an external system, once after mount
    if (young && sameItems(bodyOf(open).items, currentCartItems())) return start(open);
    void readOutcome(open, !young).then((next) => {
      // Recorded with this body: resending can only finish that same payment.
      if (next.kind === "processing" && young) return start(open);
      if (next.kind !== "not_recorded") return settle(open, next);
      store.finish(open.key);
      setAttempt(null);
      setOutcome({ kind: "idle" });
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- settle and askShop are read at resume time only
  }, [store, start]); // once per mount: `resumed` also absorbs React's development double run

  return {
    state: mutation.isPending || isPreparing ? ({ kind: "paying", retry: mutation.failureCount } as const) : outcome,
    /** The attempt being paid or awaiting an outcome, if any. */
    attempt,
    isPending: mutation.isPending || isPreparing,
    isPreparing,
    /**
     * Pays for these items with the card in the Payment Element. An open
     * attempt for the same items is sent again as it is (its token, its key):
     * a token pays once, so only a new attempt gets a new one. Otherwise
     * `createToken` turns the card into a ConfirmationToken (field errors stay
     * in the element) and a new attempt, with a new key, is sent.
     */
    payWithCard: (items: CartItem[], createToken: () => Promise<TokenResult>, receiptEmail?: string) => {
      const customerId = client.getQueryData(sessionQuery.queryKey)?.customerId;
      const open = store.resumable(items);
      if (open) return start(open, true);
      if (preparing.current) {
        void preparing.current.then((made) => made && start(made, true));
        return;
      }
      setPreparing(true);
      setOutcome({ kind: "idle" });
      preparing.current = createToken().then(
        (made) => {
          if (made.kind === "refused") setOutcome(refusedCard(made));
          if (made.kind !== "token") return null;
          const receipt = receiptEmail ? { receiptEmail } : {};
          const attempt = store.begin({ items, confirmationToken: made.confirmationToken, ...receipt }, customerId);
          start(attempt, true);
          return attempt;
        },
        () => {
          setOutcome({ kind: "rejected", code: "stripe_js", message: "The card form failed; reload the page to pay." });
          return null;
        },
      );
      void preparing.current.finally(() => {
        preparing.current = null;
        setPreparing(false);
      });
    },
    /**
     * Asks again about the open attempt, with its key: never a new payment.
     * A young attempt under its own session is sent again (the shop answers it
     * as the same payment); an old one, or one whose session ended, is only read.
     */
    checkAgain: () => {
      const open = store.current();
      if (!open) return;
      if (mayResend(open) && outcome.kind !== "session_lost") return start(open);
      void readOutcome(open, true).then((next) => settle(open, next));
    },
  };
}

/** The shop's answer after an authentication in the page, as the page shows it. */
function stateAfterReturn(outcome: ReturnOutcome): CheckoutState {
  switch (outcome.kind) {
    case "paid":
      return { kind: "paid", order: outcome.order };
    case "failed":
      return { kind: "declined", error: outcome.error, declineCode: outcome.code, message: outcome.message };
    case "requires_action":
      return { kind: "authenticating", url: outcome.url || null };
    case "not_found":
      return { kind: "processing" };
  }
}

/** Stripe would not make a token of the card: a decline nothing was charged for, or a form that failed. */
function refusedCard(made: Extract<TokenResult, { kind: "refused" }>): CheckoutState {
  if (made.cardError)
    return { kind: "declined", error: "card_declined", declineCode: made.code, message: made.message };
  return { kind: "rejected", code: made.code, message: made.message };
}

function openAttemptStore(): AttemptStore {
  try {
    return createAttemptStore(window.sessionStorage);
  } catch {
    return createAttemptStore(new MemoryStorage()); // no window (server render) or storage blocked
  }
}
