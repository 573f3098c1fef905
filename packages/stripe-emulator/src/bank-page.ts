import type { Reply } from "./api";
import { escape, html, page, pageContext, redirectStatus, safeDecode } from "./authentication-page";
import { bankRedirectTypeOf } from "./bank-redirects";
import { finishBankRedirect } from "./charging";
import type { PaymentIntent } from "./ledger";
import { formatAmount } from "./money";
import type { State } from "./state";

export const BANK_PAGE_PREFIX = "/_emulator/bank/";

const NAMES = { ideal: "iDEAL", bancontact: "Bancontact" } as const;

/**
 * The bank's page `next_action.redirect_to_url.url` points at for iDEAL and
 * Bancontact, like Stripe's test page for them: "Authorize test payment" or
 * "Fail test payment", then a 303 to `return_url` with `payment_intent`,
 * `payment_intent_client_secret` and `redirect_status` (`succeeded` or
 * `failed`). The bank decides when the shopper chooses, before the redirect:
 * a shopper who never follows it has still approved (or not); under manual
 * confirmation the approved intent then waits for the server's confirm.
 * Plain HTML, no scripts; knowing the client secret is what lets one act.
 */
export function handleBankPage(method: string, url: URL, body: string, state: State, origin: string): Reply {
  const id = safeDecode(url.pathname.slice(BANK_PAGE_PREFIX.length));
  const form = new URLSearchParams(body);
  const secret = (method === "POST" ? form.get("client_secret") : null) ?? url.searchParams.get("client_secret");
  const intent = id === null ? undefined : state.ledger.get(id);
  const type = intent ? bankRedirectTypeOf(state.ledger.paymentMethods.tokenOf(lastMethodOf(intent)) ?? "") : null;
  if (!intent || secret !== intent.client_secret || !type)
    return html(404, page("Payment not found", "<p>No bank payment waits at this address.</p>"));
  const returnUrl = state.ledger.authentications.get(intent.id)?.returnUrl ?? null;
  const title = `${NAMES[type]} test payment page`;
  if (method === "GET") return html(200, bankForm(intent, url, title));
  if (method !== "POST") return html(405, page("Method not allowed", "<p>Use the buttons on the page.</p>"));
  const action = form.get("action");
  if (action !== "authorize" && action !== "fail")
    return html(400, page("Unknown action", "<p>Choose Authorize or Fail test payment.</p>"));
  // A second submit (double click, back button) finds the intent decided: it only redirects.
  finishBankRedirect(pageContext(state, origin), intent, action === "authorize");
  if (!returnUrl) return html(200, page(title, `<p>The payment is now <strong>${escape(intent.status)}</strong>.</p>`));
  const target = new URL(returnUrl);
  target.searchParams.set("payment_intent", intent.id);
  target.searchParams.set("payment_intent_client_secret", intent.client_secret);
  target.searchParams.set("redirect_status", redirectStatus(intent));
  return {
    kind: "send",
    status: 303,
    body: "",
    headers: { Location: target.toString(), "Content-Type": "text/plain" },
  };
}

/** The bank the intent was sent to: a failed payment has dropped its payment method, its error still names it. */
function lastMethodOf(intent: PaymentIntent): string {
  return intent.payment_method ?? intent.last_payment_error?.payment_method.id ?? "";
}

function bankForm(intent: PaymentIntent, url: URL, title: string): string {
  const amount = escape(formatAmount(intent.amount, intent.currency));
  if (intent.status !== "requires_action")
    return page(
      title,
      `<p>This payment of ${amount} is no longer waiting for the bank: it is <strong>${escape(intent.status)}</strong>.</p>`,
    );
  const action = escape(url.pathname);
  const button = (value: string, label: string) =>
    `<form method="post" action="${action}"><input type="hidden" name="client_secret" value="${escape(intent.client_secret)}">` +
    `<input type="hidden" name="action" value="${value}"><button type="submit">${label}</button></form>`;
  return page(
    title,
    `<p>Stripe emulator: approve a payment of <strong>${amount}</strong> at your bank.</p>` +
      `<p>This page stands in for the shopper's bank. Choose an outcome.</p>` +
      `<div class="actions">${button("authorize", "Authorize test payment")}${button("fail", "Fail test payment")}</div>`,
  );
}
