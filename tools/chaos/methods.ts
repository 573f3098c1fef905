import type { EmulatorClient } from "@checkout/stripe-emulator/client";
import type { TokenOutcome } from "@/lib/lab/browser/card-token";
import type { CardKind } from "./cards";
import type { Journal } from "./journal";
import type { PayWith } from "./shopper";
import type { StripeJs } from "./stripe-js";

/**
 * The soak's methods beyond cards (docs/decisions/0028, 0032): a share of the
 * shoppers pay by SEPA Direct Debit (processing at once, decided when the
 * emulator's clock says so, some failing days later) or by a bank redirect
 * (iDEAL, Bancontact: to the bank's page, then back, or never back). Each is
 * a row of the same weighted table as the cards; what the shopper types into
 * the Payment Element's tab becomes a ConfirmationToken, as Stripe.js makes it.
 */
export interface MethodKind extends CardKind {
  method: "sepa_debit" | "ideal" | "bancontact";
  /** The SEPA test IBAN (packages/stripe-emulator/src/sepa.ts). */
  iban?: string;
  /** Approves at the bank and never opens the return URL: the reconciler (or a webhook's resume) confirms it. */
  neverReturns?: true;
}

const NO_CARD = { number: "", paymentMethod: "" };

export const METHOD_KINDS: MethodKind[] = [
  { name: "sepa_settles", method: "sepa_debit", iban: "DE89370400440532013000", weight: 5, ...NO_CARD },
  { name: "sepa_fails_later", method: "sepa_debit", iban: "DE62370400440532013001", weight: 3, ...NO_CARD },
  { name: "ideal_authorized", method: "ideal", authentication: "complete", weight: 4, ...NO_CARD },
  { name: "ideal_failed", method: "ideal", authentication: "fail", weight: 2, ...NO_CARD },
  {
    name: "ideal_never_returns",
    method: "ideal",
    authentication: "complete",
    neverReturns: true,
    weight: 2,
    ...NO_CARD,
  },
  { name: "bancontact_authorized", method: "bancontact", authentication: "complete", weight: 2, ...NO_CARD },
];

/** The table shoppers draw from: cards, and the methods for shoppers in a browser (API clients pay by card). */
export function paymentKinds(cards: CardKind[], payWith: PayWith): CardKind[] {
  return payWith === "confirmation-token" ? [...cards, ...METHOD_KINDS] : cards;
}

export function isMethodKind(kind: CardKind): kind is MethodKind {
  return "method" in kind;
}

/** What the checkout's body says the token is (the Payment Element's tab). */
export function paymentMethodTypeOf(kind: CardKind): { paymentMethodType?: MethodKind["method"] } {
  return isMethodKind(kind) ? { paymentMethodType: kind.method } : {};
}

/** `stripe.createConfirmationToken` after the shopper filled the method's tab. */
export async function methodConfirmationToken(stripeJs: StripeJs, kind: MethodKind): Promise<TokenOutcome> {
  const body = new URLSearchParams();
  body.set("payment_method_data[type]", kind.method);
  if (kind.method === "sepa_debit") {
    body.set("payment_method_data[sepa_debit][iban]", kind.iban ?? "");
    body.set("payment_method_data[billing_details][name]", "Jenny Rosen");
    body.set("payment_method_data[billing_details][email]", "jenny@example.com");
  }
  const response = await fetch(`${stripeJs.url}/v1/confirmation_tokens`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${stripeJs.publishableKey}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const json = (await response.json().catch(() => null)) as { id?: unknown; error?: { code?: string } } | null;
  if (response.ok && typeof json?.id === "string") return { kind: "token", id: json.id };
  const code = json?.error?.code ?? `http_${response.status}`;
  return { kind: "refused", status: response.status, code, message: "" };
}

/**
 * Stripe's days, in seconds: while shoppers pay, the emulator's clock moves
 * on every `tickMs`, so debits are decided (and some fail) mid-soak, their
 * events delivered through the faults; `settleAll` moves it past every debit
 * still processing, before the soak waits for convergence.
 */
export function startStripeClock(emulator: EmulatorClient, log: (line: string) => void, tickMs = 2_000) {
  let settled = 0;
  const advance = (seconds: number) =>
    emulator.advanceClock(seconds).then(
      (moved) => (settled += moved.settled),
      (err: unknown) => log(`clock      advance failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  const timer = setInterval(() => void advance(30), tickMs);
  timer.unref();
  return {
    async settleAll(): Promise<number> {
      clearInterval(timer);
      await advance(24 * 3600);
      return settled;
    },
  };
}

/** `sepa_settles 4 (payment_on_its_way 4) · ideal_failed 2 (authentication_failed 2) · …`: the method rows drawn, and how each ended for its shopper. */
export function methodsLine(journal: Journal): string {
  const rows = METHOD_KINDS.map((kind) => {
    const outcomes = new Map<string, number>();
    for (const attempt of journal.attempts.values())
      if (attempt.card === kind.name) outcomes.set(attempt.outcome, (outcomes.get(attempt.outcome) ?? 0) + 1);
    const total = [...outcomes.values()].reduce((sum, n) => sum + n, 0);
    const how = [...outcomes].map(([outcome, n]) => `${outcome} ${n}`).join(", ");
    return `${kind.name} ${total}${total ? ` (${how})` : ""}`;
  });
  return rows.join(" · ");
}
