import type { Stripe } from "@stripe/stripe-js";
import { MutationObserver, type QueryClient } from "@tanstack/react-query";
import { bodyOf, mayResend, type AttemptStore, type CheckoutAttempt } from "./attempt-store";
import { authenticationReturnQuery, type ReturnOutcome } from "./authentication-return";
import { sameItems } from "./cart";
import { CheckoutFailure } from "./checkout-failure";
import { checkoutMutation } from "./checkout-mutation";
import {
  immediateOutcome,
  isDefinitive,
  outcomeAfterFailure,
  stateFromCheckFailure,
  stateFromResult,
  stateFromStatus,
  type CheckoutState,
} from "./checkout-state";
import { requiredAction, type PaymentResult } from "./payment-client";
import { attemptStatusQuery, ordersQuery, readAttemptStatus, sessionQuery } from "./queries";
import type { AttemptStatus, CartItem, CheckoutBody } from "./types";

/** What making a ConfirmationToken from the Payment Element came to. */
export type TokenResult =
  /** `paymentMethodType`: what the token is (the Payment Element's tab); card when absent. */
  | { kind: "token"; confirmationToken: string; paymentMethodType?: CheckoutBody["paymentMethodType"] }
  /** The element showed what is wrong with a field: nothing to send, nothing to say. */
  | { kind: "incomplete" }
  /** Stripe refused the card, or could not be reached: nothing was sent to the shop. */
  | { kind: "refused"; code: string; message: string; cardError: boolean };

export interface CheckoutSnapshot {
  state: CheckoutState;
  /** The attempt being paid or awaiting an outcome, if any. */
  attempt: CheckoutAttempt | null;
  isPending: boolean;
  isPreparing: boolean;
  /** The attempt was not begun by a press on this page (a reload resumed it): its card form is not on screen. */
  resumed: boolean;
}

export interface CheckoutMachineOptions {
  client: QueryClient;
  store: AttemptStore;
  stripeJs?: () => Promise<Stripe | null>;
  /** The page's fetch for every request; a send may bring its own for its POSTs. Default: the global fetch. */
  fetch?: typeof fetch;
  random?: () => number;
  /** Takes a press of Pay to the bank's page; a resumed attempt only shows the way there. */
  navigate?: (url: string) => void;
  /** The paid items leave the cart. */
  onPaid?: (orderId: string, items: CartItem[]) => void;
  /** The cart now (another tab may have changed it): a reload resends only an attempt for it. */
  cartItems?: () => CartItem[];
  /**
   * The cart's checkout on the server for these items (made or updated as
   * needed), whose id a new attempt carries; null or absent: the attempt is
   * a checkout of its own. When it fails, the press fails with nothing sent.
   */
  checkoutFor?: (items: CartItem[]) => Promise<string | null>;
}

/** How often a page led to another attempt's payment asks about it, and for how long. */
const FOLLOW_INTERVAL_MS = 1_000;
const FOLLOW_TRIES = 60;

const IDLE: CheckoutSnapshot = {
  state: { kind: "idle" },
  attempt: null,
  isPending: false,
  isPreparing: false,
  resumed: false,
};

/**
 * Paying for a cart (docs/contract.md §4), without React: every press, retry
 * and reload of one attempt sends the same Idempotency-Key; when retries run
 * out the shop is asked what happened instead of trying a new key. The hook
 * subscribes to it (`useSyncExternalStore`); the lab's lanes and the chaos
 * soak's tabs drive the same class.
 */
export class CheckoutMachine {
  private readonly listeners = new Set<() => void>();
  private snapshot = IDLE;
  private outcome: CheckoutState = { kind: "idle" };
  private attempt: CheckoutAttempt | null = null;
  private latestSend = 0;
  private sending = false;
  private retry = 0;
  /** A press while the card is being turned into a token joins that press. */
  private preparing: Promise<CheckoutAttempt | null> | null = null;
  /** The attempt whose bank challenge is open on this page. */
  private challenging: string | null = null;
  /** Another attempt's payment of this checkout that the page shows (`follow`): "Check again" asks about it. */
  private following: CheckoutAttempt | null = null;
  private pressed = false;
  private resumed = false;
  private readonly closed = new AbortController();

  constructor(private readonly options: CheckoutMachineOptions) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): CheckoutSnapshot => this.snapshot;

  static readonly initialSnapshot = IDLE;

  /**
   * Sends an attempt, retrying with its key until the shop answers; resolves
   * with what that send came to (after an in-page bank challenge, if any).
   * `fetch`: this send's POSTs (the lab numbers each press's tries).
   */
  send = (open: CheckoutAttempt, how: { byPress?: boolean; fetch?: typeof fetch } = {}): Promise<CheckoutState> => {
    const id = ++this.latestSend;
    this.pressed = how.byPress ?? false;
    this.attempt = open;
    this.following = null;
    this.outcome = { kind: "idle" };
    this.sending = true;
    this.retry = 0;
    this.publish();
    const mutation = checkoutMutation({
      fetch: how.fetch ?? this.options.fetch,
      random: this.options.random,
      signal: this.closed.signal,
      onRetry: (retry) => {
        if (id !== this.latestSend) return;
        this.retry = retry;
        this.publish();
      },
    });
    const done = () => {
      if (id === this.latestSend) this.sending = false;
    };
    return new MutationObserver(this.options.client, mutation).mutate(open).then(
      (result) => (done(), this.answered(open, result)),
      (error: unknown) => (done(), this.failed(open, error)),
    );
  };

  /** Pays for these items with the card in the Payment Element (see `useCheckout`). */
  payWithCard = (items: CartItem[], createToken: () => Promise<TokenResult>, receiptEmail?: string): void => {
    const customerId = this.options.client.getQueryData(sessionQuery.queryKey)?.customerId;
    const open = this.options.store.resumable(items);
    if (open) return void this.send(open, { byPress: true });
    if (this.preparing) {
      void this.preparing.then((made) => made && this.send(made, { byPress: true }));
      return;
    }
    this.outcome = { kind: "idle" };
    this.retry = 0;
    const checkoutId = this.options.checkoutFor?.(items) ?? Promise.resolve(null);
    checkoutId.catch(() => undefined); // awaited below, once the token is made
    this.preparing = createToken().then(
      async (made) => {
        if (made.kind === "refused") this.outcome = refusedCard(made);
        if (made.kind !== "token") return null;
        // Without its checkout the attempt would be a checkout of its own, which another tab could pay
        // again: the press fails instead, with nothing sent.
        let checkout: string | null;
        try {
          checkout = await checkoutId;
        } catch {
          this.outcome = {
            kind: "rejected",
            code: "checkout_unavailable",
            message: "The shop could not be reached to hold your cart. Nothing was charged; press Pay to try again.",
          };
          return null;
        }
        const receipt = receiptEmail ? { receiptEmail } : {};
        const attempt = this.options.store.begin(
          {
            ...(checkout ? { checkoutId: checkout } : {}),
            items,
            confirmationToken: made.confirmationToken,
            paymentMethodType: made.paymentMethodType,
            ...receipt,
          },
          customerId,
        );
        void this.send(attempt, { byPress: true });
        return attempt;
      },
      () => {
        this.outcome = {
          kind: "rejected",
          code: "stripe_js",
          message: "The card form failed; reload the page to pay.",
        };
        return null;
      },
    );
    this.publish();
    void this.preparing.finally(() => {
      this.preparing = null;
      this.publish();
    });
  };

  /**
   * Asks again about the open attempt, with its key: never a new payment. A
   * young attempt under its own session is sent again (the shop answers it as
   * the same payment); an old one, or one whose session ended, is only read.
   */
  checkAgain = (): void => {
    const open = this.options.store.current();
    if (!open) return void (this.following && this.askAgain(this.following));
    if (mayResend(open) && this.outcome.kind !== "session_lost") return void this.send(open);
    void this.read(open, true).then((next) => this.settle(open, next));
  };

  /**
   * Once per page: an attempt a reload left open is resumed if it is young and
   * for the cart on screen; otherwise the shop is asked first (resending an
   * attempt it never received would pay for a cart no longer wanted), and an
   * old one is only ever asked about (the shop may have forgotten its key).
   */
  resume = (): void => {
    if (this.resumed) return;
    this.resumed = true;
    const open = this.options.store.current();
    if (!open) return;
    const young = mayResend(open);
    if (young && sameItems(bodyOf(open).items, this.options.cartItems?.() ?? [])) return void this.send(open);
    void this.read(open, !young).then((next) => {
      // Recorded with this body: resending can only finish that same payment.
      if (next.kind === "processing" && young) return void this.send(open);
      if (next.kind !== "not_recorded") return this.settle(open, next);
      this.options.store.finish(open.key);
      this.attempt = null;
      this.outcome = { kind: "idle" };
      this.publish();
    });
  };

  /** Asks the shop what became of the attempt: a read, never a payment. */
  read = (open: CheckoutAttempt, mayBeForgotten = !mayResend(open)): Promise<CheckoutState> => {
    this.attempt = open;
    this.outcome = { kind: "checking" };
    this.publish();
    return outcomeAfterFailure(null, this.askShop(open), { mayBeForgotten });
  };

  /** The page is gone: no retry, no read, no state change after this. */
  close = (): void => {
    this.closed.abort(new Error("the page was closed"));
  };

  private async answered(open: CheckoutAttempt, result: PaymentResult): Promise<CheckoutState> {
    if (this.closed.signal.aborted) return this.outcome;
    // A replayed 202 joins the challenge already open, and one arriving after the attempt settled asks nothing.
    if (
      result.kind === "requires_action" &&
      (this.challenging === open.key || this.options.store.current()?.key !== open.key)
    ) {
      this.publish();
      return this.outcome;
    }
    if (result.kind === "has_payment") return this.follow(open, result.key);
    this.settle(open, stateFromResult(result));
    if (result.kind !== "requires_action") return this.outcome;
    if (result.action.type === "redirect") {
      if (this.pressed) this.options.navigate?.(result.action.url);
      return this.outcome;
    }
    const next = await this.challenge(open, result.action.clientSecret);
    this.settle(open, next);
    return next;
  }

  private async failed(open: CheckoutAttempt, error: unknown): Promise<CheckoutState> {
    if (this.closed.signal.aborted) return this.outcome;
    if (error instanceof CheckoutFailure && error.status === 401)
      this.options.client.removeQueries({ queryKey: sessionQuery.queryKey });
    // A refusal, or a session that ended mid-attempt (the attempt stays open): nothing to ask.
    const immediate = immediateOutcome(error);
    if (immediate) return this.settle(open, immediate);
    this.outcome = { kind: "checking" };
    this.publish();
    const next = await outcomeAfterFailure(error, this.askShop(open), { mayBeForgotten: !mayResend(open) });
    return this.settle(open, next);
  }

  /**
   * The checkout already has a payment, another attempt's (a second tab's):
   * this attempt was refused with nothing stored and is closed; the page
   * shows that payment's state, asking about its key until it is decided.
   */
  private async follow(open: CheckoutAttempt, key: string): Promise<CheckoutState> {
    this.options.store.finish(open.key);
    const paying: CheckoutAttempt = { ...open, key };
    this.following = paying;
    this.attempt = null;
    this.outcome = { kind: "checking" };
    this.publish();
    let next: CheckoutState = { kind: "processing" };
    for (let tries = 0; tries < FOLLOW_TRIES && !this.closed.signal.aborted; tries++) {
      next = await outcomeAfterFailure(null, this.askShop(paying), { mayBeForgotten: true });
      if (next.kind !== "processing") break;
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
    }
    return this.settle(paying, next);
  }

  /**
   * "Check again" on a payment this page follows: its key is another tab's, so
   * it is only ever read, never sent. A bank challenge it waits for opens here
   * (the shopper may have closed the tab that began it), then the shop is told.
   */
  private async askAgain(paying: CheckoutAttempt): Promise<CheckoutState> {
    this.outcome = { kind: "checking" };
    this.publish();
    let status: AttemptStatus;
    try {
      status = await this.askShop(paying)();
    } catch (err) {
      return this.settle(paying, stateFromCheckFailure(err, { mayBeForgotten: true }));
    }
    const action = status.response?.statusCode === 202 ? requiredAction(status.response.body) : null;
    if (action?.action.type !== "use_stripe_sdk") return this.settle(paying, stateFromStatus(status));
    return this.settle(paying, await this.challenge(paying, action.action.clientSecret));
  }

  private askShop(open: CheckoutAttempt) {
    const { client, fetch: send } = this.options;
    const query = attemptStatusQuery(open.key);
    return () =>
      client.fetchQuery(send ? { ...query, queryFn: () => readAttemptStatus(client, open.key, send) } : query);
  }

  /** The bank's challenge of `open`, open on this page meanwhile (a replayed 202 joins it). */
  private async challenge(open: CheckoutAttempt, clientSecret: string): Promise<CheckoutState> {
    this.challenging = open.key;
    try {
      return await this.authenticateHere(open, clientSecret);
    } finally {
      if (this.challenging === open.key) this.challenging = null;
    }
  }

  /**
   * 3-D Secure in this page: Stripe.js shows the bank's challenge
   * (`handleNextAction`), then the shop is told, as the return page tells it
   * after a redirect, and answers the attempt's outcome.
   */
  private async authenticateHere(open: CheckoutAttempt, clientSecret: string): Promise<CheckoutState> {
    let paymentIntent: string | null = null;
    try {
      const stripe = await this.options.stripeJs?.();
      if (!stripe) return { kind: "authenticating", url: null };
      paymentIntent = (await stripe.handleNextAction({ clientSecret })).paymentIntent?.id ?? null;
    } catch {
      // Stripe.js throws when the intent no longer waits (a reload or a second tab after the
      // shopper authenticated) and may fail in other ways: whatever it did, the shop knows.
    }
    try {
      // As the return page reports it, retries included: the shop may be settling this
      // payment from Stripe's event at this moment (409), and asking again soon finds it settled.
      const report = authenticationReturnQuery(open.key, paymentIntent);
      return stateAfterReturn(await this.options.client.fetchQuery({ ...report, staleTime: 0 }));
    } catch {
      return { kind: "unreachable" };
    }
  }

  private settle(settled: CheckoutAttempt, next: CheckoutState): CheckoutState {
    if (this.closed.signal.aborted) return next;
    if (isDefinitive(next)) {
      this.options.store.finish(settled.key);
      if (this.attempt?.key === settled.key) this.attempt = null;
      if (this.following?.key === settled.key) this.following = null;
    }
    if (next.kind === "paid" || next.kind === "payment_on_its_way") {
      // A payment on its way is bought: its lines leave the cart as a paid one's do.
      this.options.onPaid?.(next.kind === "paid" ? next.order.orderId : next.orderId, bodyOf(settled).items);
      void this.options.client.invalidateQueries({ queryKey: ordersQuery.queryKey });
    }
    this.outcome = next;
    this.publish();
    return next;
  }

  private publish(): void {
    const isPending = this.sending || this.preparing !== null;
    this.snapshot = {
      state: isPending ? { kind: "paying", retry: this.retry } : this.outcome,
      attempt: this.attempt,
      isPending,
      isPreparing: this.preparing !== null,
      resumed: this.attempt !== null && !this.pressed,
    };
    for (const listener of this.listeners) listener();
  }
}

/** The shop's answer after an authentication in the page, as the page shows it. */
function stateAfterReturn(outcome: ReturnOutcome): CheckoutState {
  switch (outcome.kind) {
    case "paid":
      return { kind: "paid", order: outcome.order };
    case "failed":
      return { kind: "declined", error: outcome.error, declineCode: outcome.code, message: outcome.message };
    case "requires_action":
      // The challenge on this page is over, yet the bank still waits: the shopper opens it again.
      return outcome.url ? { kind: "authenticating", url: outcome.url } : { kind: "authentication_pending" };
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
