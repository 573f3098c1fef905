import type { Reply } from "./api";
import { finishAuthentication } from "./charging";
import { DEFAULT_API_VERSION, type Ctx } from "./context";
import type { PaymentIntent } from "./ledger";
import { formatAmount } from "./money";
import type { State } from "./state";

/**
 * The hosted 3-D Secure page `next_action.redirect_to_url.url` points at, like
 * Stripe's test page: Complete or Fail authentication, then a 303 back to
 * `return_url` with `payment_intent`, `payment_intent_client_secret` and
 * `redirect_status`. Plain HTML with no scripts or remote assets, so it works
 * offline and in any browser. Knowing the client secret is what lets one act.
 */
export function handleAuthenticationPage(method: string, url: URL, body: string, state: State, origin: string): Reply {
  const id = safeDecode(url.pathname.slice("/_emulator/3ds/".length));
  const form = new URLSearchParams(body);
  const secret = (method === "POST" ? form.get("client_secret") : null) ?? url.searchParams.get("client_secret");
  const intent = id === null ? undefined : state.ledger.get(id);
  if (!intent || secret !== intent.client_secret)
    return html(404, page("Payment not found", "<p>No payment needs authentication at this address.</p>"));
  const returnUrl = state.ledger.authentications.get(intent.id)?.returnUrl ?? null;
  // In place (Stripe.js's handleNextAction): the page in the shop's modal tells the shop's page when it is done.
  const parent = originOf((method === "POST" ? form.get("parent") : null) ?? url.searchParams.get("parent"));
  if (method === "GET") return html(200, authenticationForm(intent, url, parent));
  if (method !== "POST") return html(405, page("Method not allowed", "<p>Use the buttons on the page.</p>"));

  const action = form.get("action");
  if (action !== "complete" && action !== "fail")
    return html(400, page("Unknown action", "<p>Choose Complete or Fail authentication.</p>"));
  // A second submit (double click, back button) finds the intent settled: it only redirects.
  finishAuthentication(pageContext(state, origin), intent, action === "complete");
  if (!returnUrl)
    return html(
      200,
      page(
        "Authentication finished",
        `<p>The payment is now <strong>${escape(intent.status)}</strong>.</p>${finished(intent, parent)}`,
      ),
    );
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

/** Assumed: a manual intent back in requires_confirmation was authenticated, which is what the redirect reports. */
export function redirectStatus(intent: PaymentIntent): string {
  return intent.status === "succeeded" || intent.status === "requires_confirmation" ? "succeeded" : "failed";
}

/** The shopper's actions carry no API request, so their events have `request.id` null, as at Stripe. */
export function pageContext(state: State, origin: string): Ctx {
  return {
    ledger: state.ledger,
    events: state.events,
    stats: state.faults.stats,
    settings: state.faults.settings,
    later: state.later,
    request: { id: null, idempotency_key: null },
    apiVersion: DEFAULT_API_VERSION,
    origin,
    confirmationTokenTtlMs: state.faults.settings.confirmationTokenTtlMs,
  };
}

function authenticationForm(intent: PaymentIntent, url: URL, parent: string | null): string {
  const amount = escape(formatAmount(intent.amount, intent.currency));
  if (intent.status !== "requires_action") {
    return page(
      "3D Secure test payment page",
      `<p>This payment of ${amount} is no longer waiting for authentication: it is <strong>${escape(intent.status)}</strong>.</p>${finished(intent, parent)}`,
    );
  }
  const action = escape(url.pathname);
  const parentField = parent ? `<input type="hidden" name="parent" value="${escape(parent)}">` : "";
  const button = (value: string, label: string) =>
    `<form method="post" action="${action}"><input type="hidden" name="client_secret" value="${escape(intent.client_secret)}">${parentField}` +
    `<input type="hidden" name="action" value="${value}"><button type="submit">${label}</button></form>`;
  return page(
    "3D Secure test payment page",
    `<p>Stripe emulator: authenticate a payment of <strong>${amount}</strong>.</p>` +
      `<p>This page stands in for the card issuer's 3-D Secure challenge. Choose an outcome.</p>` +
      `<div class="actions">${button("complete", "Complete authentication")}${button("fail", "Fail authentication")}</div>`,
  );
}

/** Tells the shop's page (Stripe.js's modal) the outcome: the intent's id and status, never its secret. */
function finished(intent: PaymentIntent, parent: string | null): string {
  if (!parent) return "";
  const message = JSON.stringify({
    type: "three_d_secure_finished",
    paymentIntent: { id: intent.id, status: intent.status },
  });
  return `<script>parent.postMessage(${message.replace(/</g, "\\u003c")}, ${JSON.stringify(parent).replace(/</g, "\\u003c")});</script>`;
}

function originOf(value: string | null): string | null {
  if (!value || !URL.canParse(value)) return null;
  const parsed = new URL(value);
  return /^https?:$/.test(parsed.protocol) ? parsed.origin : null;
}

export function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}.actions{display:flex;gap:1rem}button{font:inherit;padding:.6rem 1rem}</style></head>
<body><main><h1>${escape(title)}</h1>${content}</main></body>
</html>`;
}

export function html(status: number, body: string): Reply {
  return { kind: "send", status, body, headers: { "Content-Type": "text/html; charset=utf-8" } };
}

export function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
