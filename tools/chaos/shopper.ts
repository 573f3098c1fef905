import { QueryClient } from "@tanstack/react-query";
import { ApiError } from "@/lib/checkout-client/api";
import { authenticationReturnQuery, returnOutcomeOf } from "@/lib/checkout-client/authentication-return";
import { CheckoutFailure } from "@/lib/checkout-client/checkout-failure";
import { createAttemptStore, type AttemptStore, type CheckoutAttempt } from "@/lib/checkout-client/attempt-store";
import { CheckoutMachine } from "@/lib/checkout-client/checkout-machine";
import { isDefinitive, stateFromResult, type CheckoutState } from "@/lib/checkout-client/checkout-state";
import { requiredAction, type PaymentResult } from "@/lib/checkout-client/payment-client";
import { sessionQuery } from "@/lib/checkout-client/queries";
import type { CartItem, CheckoutBody } from "@/lib/checkout-client/types";
import type { CardKind } from "./cards";
import { Browser, sleep } from "./http-shopper";
import { REFUSED_BY_STRIPE_JS, type AttemptLog, type Journal } from "./journal";
import type { Random } from "./random";
import { isMethodKind, methodConfirmationToken, paymentMethodTypeOf } from "./methods";
import { createConfirmationToken, handleNextAction, type StripeJs } from "./stripe-js";
import { authenticate } from "./three-d-secure";

/**
 * A simulated shopper driving the checkout page's own CheckoutMachine: the
 * attempt store (one key per attempt, kept across reloads), the mutation with
 * the project's backoff policy (409/503/502/network retried with the same
 * key), and, when retries run out, the same "ask the shop" step. The card is
 * paid for as the page pays: Stripe.js makes a ConfirmationToken of the typed
 * number, and that token, under the attempt's key, is the body every press,
 * retry and reload sends. On top of that, what impatient people do: press
 * twice, lose the connection, reload mid-payment, press "Check again".
 */
export interface Behaviour {
  doublePress: boolean;
  abortFirstRequest: boolean;
  reloadMidPayment: boolean;
}

export function drawBehaviour(random: Random, doublePressPercent: number): Behaviour {
  return {
    doublePress: random.chance(doublePressPercent / 100),
    abortFirstRequest: random.chance(0.12),
    reloadMidPayment: random.chance(0.12),
  };
}

/** How often a shopper left without a definitive answer presses "Check again" before walking away. */
const CHECK_AGAIN = 1;

/**
 * What the body carries: a ConfirmationToken made by Stripe.js (a shopper in
 * a browser), or the card's test payment method (an API client).
 */
export type PayWith = "confirmation-token" | "payment-method";

export class Shopper {
  readonly browser: Browser;
  /** The tab's sessionStorage: survives reloads, so a reload resumes the open attempt. */
  private readonly store: AttemptStore;

  constructor(
    appUrl: string,
    private readonly journal: Journal,
    private readonly random: Random,
    private readonly doublePressPercent: number,
    private readonly stripeJs: StripeJs,
    private readonly payWith: PayWith = "confirmation-token",
  ) {
    this.browser = new Browser(appUrl, journal);
    this.store = createAttemptStore(undefined, () => random.uuid());
  }

  get customerId(): string {
    return this.browser.customerId;
  }

  /**
   * One checkout attempt from Pay to whatever the shopper is left looking at.
   * Returns false if they walked away undecided. Each attempt makes its own
   * token (a token pays once): the attempt after a decline has a new one.
   */
  async checkout(items: CartItem[], card: CardKind, amountCents: number): Promise<boolean> {
    let cart: CheckoutBody;
    if (this.payWith === "payment-method") cart = { items, paymentMethod: card.paymentMethod };
    else {
      const made = isMethodKind(card)
        ? await methodConfirmationToken(this.stripeJs, card)
        : await createConfirmationToken(this.stripeJs, card.number);
      if (made.kind === "refused") {
        // The element shows Stripe's refusal; nothing reached the shop, and no attempt began.
        this.journal.open({
          id: this.random.uuid(),
          customerId: this.customerId,
          card: card.name,
          credential: `refused by Stripe.js: ${made.code}`,
          amountCents,
        }).outcome = `${REFUSED_BY_STRIPE_JS}${made.code}`;
        return true;
      }
      cart = { items, confirmationToken: made.id, ...paymentMethodTypeOf(card) };
    }
    const attempt = this.store.begin(cart);
    const log = this.journal.open({
      id: attempt.key,
      customerId: this.customerId,
      card: card.name,
      credential: cart.confirmationToken ?? cart.paymentMethod ?? "",
      amountCents,
    });
    const behaviour = drawBehaviour(this.random, this.doublePressPercent);
    let tab = new Tab(this.browser, attempt.key, this.random, this.store);
    if (behaviour.abortFirstRequest) {
      log.behaviours.push("abort");
      tab.abortFirstAfter(this.random.int(20, 400));
    }
    const presses = [tab.pay(attempt)];
    if (behaviour.doublePress) {
      log.behaviours.push("double_press");
      await sleep(this.random.int(0, 250));
      presses.push(tab.pay(attempt));
    }
    if (behaviour.reloadMidPayment) {
      await sleep(this.random.int(50, 1500));
      log.behaviours.push("reload");
      tab.close();
      tab = new Tab(this.browser, attempt.key, this.random, this.store);
      const open = this.store.current(); // what the reloaded page finds in sessionStorage
      if (open) presses.push(tab.pay(open));
    }
    let state = await this.settle(tab, presses, attempt, log);
    for (let check = 0; check < CHECK_AGAIN && !definitive(state) && state.kind !== "authenticating"; check++) {
      await sleep(this.random.int(1_000, 3_000));
      log.behaviours.push("check_again");
      state = await this.settle(tab, [tab.pay(attempt)], attempt, log);
    }
    // A token Stripe.js made is authenticated in place (handleNextAction); a test payment method, by redirect.
    if (state.kind === "authenticating") state = await this.authenticate(state.url, card, attempt, log);
    log.outcome = outcomeLabel(state);
    if (definitive(state)) this.store.finish(attempt.key);
    return definitive(state);
  }

  /** The first definitive answer among the live tab's presses, else what the shop says about the attempt. */
  private async settle(
    tab: Tab,
    presses: Array<Promise<Press>>,
    attempt: CheckoutAttempt,
    log: AttemptLog,
  ): Promise<ShopperState> {
    const results = await Promise.all(presses);
    let fallback: ShopperState | null = null;
    for (const press of results) {
      if (press.tab !== tab) continue; // a press from before the reload: that page is gone
      if (definitive(press.state) || press.state.kind === "authenticating") return press.state;
      // No answer reached this press, but an earlier one saw the bank's challenge: the shopper is at it.
      const action = requiresAction(log);
      if (action) return stateFromResult(action);
      fallback ??= press.state;
    }
    return fallback ?? (await tab.machine.read(attempt));
  }

  /**
   * On the provider's page: complete, fail, or close the tab. In place (the
   * bank's page in the shop's page, as Stripe.js opens it), the shop is then
   * told as the page tells it; after a redirect, on the shop's return page.
   */
  private async authenticate(
    url: string | null,
    card: CardKind,
    attempt: CheckoutAttempt,
    log: AttemptLog,
  ): Promise<ShopperState> {
    if (card.authentication === "abandon" || !card.authentication) {
      log.behaviours.push("abandon_authentication");
      return { kind: "left_at_bank" };
    }
    log.behaviours.push(`${card.authentication}_authentication`);
    if (url === null) {
      const action = requiresAction(log);
      if (action?.action.type !== "use_stripe_sdk") return { kind: "left_at_bank" };
      let paymentIntent: string;
      try {
        const handled = await handleNextAction(
          this.stripeJs,
          action.action.clientSecret,
          this.browser.appUrl,
          card.authentication,
        );
        paymentIntent = handled.id;
      } catch (err) {
        log.behaviours.push(`authentication_page_error: ${err instanceof Error ? err.message : String(err)}`);
        return { kind: "left_at_bank" };
      }
      log.behaviours.push("in_place");
      return reportReturn(this.browser.fetchFor(attempt.key), attempt.key, paymentIntent);
    }
    let returnUrl: URL;
    try {
      returnUrl = new URL(await authenticate(url, card.authentication));
    } catch (err) {
      log.behaviours.push(`authentication_page_error: ${err instanceof Error ? err.message : String(err)}`);
      return { kind: "left_at_bank" };
    }
    if (isMethodKind(card) && card.neverReturns) {
      log.behaviours.push("never_returned");
      return { kind: "left_at_bank" };
    }
    const send = this.browser.fetchFor(attempt.key);
    await send(returnUrl.pathname + returnUrl.search).catch(() => undefined); // the return page itself
    return reportReturn(send, attempt.key, returnUrl.searchParams.get("payment_intent"));
  }
}

/**
 * What the return page does: report the return to the shop with the page's
 * own query options (its retry policy and delays), and show the outcome.
 */
async function reportReturn(send: typeof fetch, key: string, paymentIntent: string | null): Promise<ShopperState> {
  const policy = authenticationReturnQuery(key, paymentIntent);
  const retry = policy.retry as (count: number, error: unknown) => boolean;
  const retryDelay = policy.retryDelay as (count: number, error: unknown) => number;
  for (let count = 0; ; count++) {
    try {
      const response = await send(`/api/checkout/${encodeURIComponent(key)}/return`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ paymentIntent }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
      const outcome = returnOutcomeOf(response, body);
      if (outcome.kind === "paid") return { kind: "paid", order: outcome.order };
      if (outcome.kind === "failed")
        return { kind: "declined", error: outcome.error, declineCode: outcome.code, message: outcome.message };
      if (outcome.kind === "not_found") return { kind: "not_recorded" };
      return { kind: "processing" }; // back without finishing authentication
    } catch (raw) {
      const error = raw instanceof CheckoutFailure || raw instanceof ApiError ? raw : CheckoutFailure.network(raw);
      if (!retry(count, error)) return { kind: "unreachable" };
      await sleep(retryDelay(count, error));
    }
  }
}

/** The page's states, and one of the soak's own: the shopper closed the bank's page and left. */
type ShopperState = CheckoutState | { kind: "left_at_bank" };

function definitive(state: ShopperState): boolean {
  return state.kind !== "left_at_bank" && isDefinitive(state);
}

type Press = { tab: Tab; state: CheckoutState };

/** A status read that hangs (a stalled proxy) gives up like the page's request would, rather than hold the shopper. */
const READ_TIMEOUT_MS = 5_000;

/** One page load of the checkout: its own QueryClient and CheckoutMachine, like a browser tab. */
class Tab {
  private closed = false;
  private readonly client = new QueryClient();
  private readonly aborts = new Set<AbortController>();
  private abortFirstMs: number | null = null;
  readonly machine: CheckoutMachine;

  constructor(browser: Browser, attemptId: string, random: Random, store: AttemptStore) {
    this.client.setQueryData(sessionQuery.queryKey, { customerId: browser.customerId });
    const send = browser.fetchFor(attemptId, () => this.nextSignal());
    this.machine = new CheckoutMachine({
      client: this.client,
      store,
      fetch: (input, init) => send(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(READ_TIMEOUT_MS) }),
      random: () => random.next(),
    });
  }

  abortFirstAfter(ms: number): void {
    this.abortFirstMs = ms;
  }

  /** A press of Pay: the page's machine, with its retry policy, until it settles. */
  async pay(attempt: CheckoutAttempt): Promise<Press> {
    return { tab: this, state: await this.machine.send(attempt, { byPress: true }) };
  }

  close(): void {
    this.closed = true;
    this.machine.close(); // a closed tab's JavaScript is gone: its retries stop there
    for (const controller of this.aborts) controller.abort(new Error("the page was reloaded"));
  }

  private nextSignal(): AbortSignal | undefined {
    if (this.closed) return AbortSignal.abort(new Error("the page was reloaded"));
    const controller = new AbortController();
    this.aborts.add(controller);
    if (this.abortFirstMs !== null) {
      const ms = this.abortFirstMs;
      this.abortFirstMs = null;
      setTimeout(() => controller.abort(new Error("the shopper's connection dropped")), ms).unref();
    }
    setTimeout(() => this.aborts.delete(controller), 30_000).unref();
    return controller.signal;
  }
}

/** The last 202 requires_action this attempt's shopper saw (from any press), if any. */
function requiresAction(log: AttemptLog): Extract<PaymentResult, { kind: "requires_action" }> | null {
  for (let i = log.answers.length - 1; i >= 0; i--) {
    const answer = log.answers[i]!;
    const action = answer.status === 202 ? requiredAction(answer.body) : null;
    if (action) return action;
  }
  return null;
}

/** The outcome table's row: paid, the 402's error code, or where the shopper was left. */
function outcomeLabel(state: ShopperState): string {
  if (state.kind === "declined") return state.error;
  if (state.kind === "rejected") return `rejected_${state.code}`;
  return state.kind;
}
