import type { Reply } from "./api";
import { STRIPE_JS_FAILURE_HEADER } from "./browser-intents";
import { cardProblem } from "./card-numbers";

/**
 * The emulator's stand-in for Stripe.js, served from the emulator's own
 * origin as Stripe's is from js.stripe.com, so that tests and the demo load
 * nothing from the internet. It is the subset the shop calls, with Stripe's
 * names and shapes: `Stripe(pk)`, `elements(options)`,
 * `elements.create("payment")`, `mount`, `on("change")`, `elements.submit()`,
 * `createConfirmationToken`, `handleNextAction`. As at Stripe, the card
 * fields live in an iframe of the emulator's origin ("Secure payment input
 * frame", inputs `number`, `expiry`, `cvc`, `postalCode`): the page around it
 * can neither read them nor see the card, which goes from the iframe straight
 * to `POST /v1/confirmation_tokens` with the publishable key. The page and
 * the iframe talk by postMessage, each checking the other's origin.
 */
export const STRIPE_JS_PATH = "/endive/stripe.js";
const FRAME_PATH = "/endive/elements-inner-payment.html";

export function handleStripeJs(method: string, url: URL, origin: string): Reply | null {
  if (method !== "GET") return null;
  if (url.pathname === STRIPE_JS_PATH) return asset("text/javascript; charset=utf-8", stripeJs(origin));
  if (url.pathname === FRAME_PATH) return asset("text/html; charset=utf-8", paymentFrame(origin));
  return null;
}

function asset(contentType: string, body: string): Reply {
  return { kind: "send", status: 200, body, headers: { "Content-Type": contentType, "Cache-Control": "no-store" } };
}

/** The page's half: the Stripe object, Elements, the Payment Element's iframe, and 3-D Secure in a modal. */
function stripeJs(origin: string): string {
  return `(() => {
"use strict";
const ORIGIN = ${JSON.stringify(origin)};
let frames = 0;
const unsupported = (name) => () => Promise.reject(new Error(name + " is not part of the Stripe emulator's Stripe.js; the shop confirms on its server."));

function Stripe(publishableKey) {
  if (!(this instanceof Stripe)) return new Stripe(publishableKey);
  if (typeof publishableKey !== "string" || !/^pk_test_/.test(publishableKey))
    throw new Error("Stripe(): the emulator takes a test publishable key (pk_test_...), not " + String(publishableKey).slice(0, 8) + "...");
  let elementsGroup = null;
  const stripe = {
    elements(options) {
      elementsGroup = createElements(publishableKey, options || {});
      return elementsGroup;
    },
    async createConfirmationToken({ elements, params } = {}) {
      const group = elements || elementsGroup;
      if (!group || !group._payment) return { error: integrationError("createConfirmationToken needs elements with a mounted Payment Element.") };
      return group._payment._ask("createToken", { params: params || {} });
    },
    async handleNextAction({ clientSecret } = {}) {
      if (typeof clientSecret !== "string" || !clientSecret.includes("_secret_"))
        return { error: integrationError("handleNextAction needs the PaymentIntent's clientSecret.") };
      // As Stripe.js: read the intent with the publishable key first, and throw unless it waits for an action.
      const id = clientSecret.slice(0, clientSecret.indexOf("_secret_"));
      const unreachable = { error: { type: "api_connection_error", message: "We could not reach Stripe. Check your connection and try again." } };
      let response;
      try {
        response = await fetch(ORIGIN + "/v1/payment_intents/" + encodeURIComponent(id) + "?client_secret=" + encodeURIComponent(clientSecret), {
          headers: { Authorization: "Bearer " + publishableKey },
        });
      } catch (error) {
        return unreachable;
      }
      const intent = await response.json().catch(() => ({}));
      if (!response.ok) return { error: intent.error || { type: "api_error", message: "Stripe answered HTTP " + response.status + "." } };
      const failure = response.headers.get(${JSON.stringify(STRIPE_JS_FAILURE_HEADER)});
      if (failure === "network") return unreachable;
      if (failure === "reject") throw integrationThrow("handleNextAction failed (the Stripe emulator was told to make it reject).");
      if (intent.status !== "requires_action")
        throw integrationThrow("handleNextAction: the PaymentIntent has a status of " + intent.status + "; only one that requires_action has a next action to handle.");
      return challenge(clientSecret, failure === "closed");
    },
    createToken: unsupported("createToken"),
    createPaymentMethod: unsupported("createPaymentMethod"),
    confirmCardPayment: unsupported("confirmCardPayment"),
    confirmPayment: unsupported("confirmPayment"),
    _registerWrapper() {},
    registerAppInfo() {},
  };
  return stripe;
}
Stripe.version = "endive";

function integrationError(message) {
  return { type: "invalid_request_error", code: "integration_error", message };
}

/** What Stripe.js throws when it is called in a way it cannot serve. */
function integrationThrow(message) {
  const error = new Error(message);
  error.name = "IntegrationError";
  return error;
}

function createElements(publishableKey, options) {
  const group = {
    _payment: null,
    create(type, elementOptions) {
      if (type !== "payment") throw new Error("The emulator's Stripe.js offers the Payment Element only, not " + type + ".");
      if (group._payment) throw new Error("Can only create one Element of type payment.");
      group._payment = createPaymentElement(publishableKey, options, elementOptions || {}, group);
      return group._payment;
    },
    getElement(type) {
      return type === "payment" ? group._payment : null;
    },
    update(next) {
      Object.assign(options, next || {});
    },
    fetchUpdates() {
      return Promise.resolve({});
    },
    submit() {
      if (!group._payment) return Promise.resolve({ error: integrationError("elements.submit() needs a mounted Payment Element.") });
      return group._payment._ask("submit", {});
    },
  };
  return group;
}

function createPaymentElement(publishableKey, groupOptions, elementOptions, group) {
  const handlers = new Map();
  const pending = new Map();
  let frame = null;
  let asked = 0;
  const emit = (event, payload) => (handlers.get(event) || []).slice().forEach((handler) => handler(payload));
  const onMessage = (event) => {
    if (!frame || event.origin !== ORIGIN || event.source !== frame.contentWindow) return;
    const message = event.data || {};
    if (message.type === "ready") emit("ready", { elementType: "payment" });
    if (message.type === "change") emit("change", { elementType: "payment", ...message.change });
    if (message.type === "focus" || message.type === "blur") emit(message.type, { elementType: "payment" });
    if (message.type === "height") frame.style.height = message.height + "px";
    if (message.type === "answer" && pending.has(message.id)) {
      pending.get(message.id)(message.result);
      pending.delete(message.id);
    }
  };
  const element = {
    mount(target) {
      const node = typeof target === "string" ? document.querySelector(target) : target;
      if (!node) throw new Error("mount(): no element to mount the Payment Element into.");
      const name = "__privateStripeFrame" + (++frames);
      frame = document.createElement("iframe");
      frame.name = name;
      frame.title = "Secure payment input frame";
      frame.setAttribute("frameborder", "0");
      frame.setAttribute("allowtransparency", "true");
      frame.setAttribute("scrolling", "no");
      frame.style.cssText = "border:0;width:100%;height:240px;display:block;overflow:hidden;";
      const types = groupOptions.allowedPaymentMethodTypes || groupOptions.paymentMethodTypes || ["card"];
      const config = { parent: location.origin, key: publishableKey, mode: groupOptions.mode || null, types };
      frame.src = ORIGIN + ${JSON.stringify(FRAME_PATH)} + "#" + encodeURIComponent(JSON.stringify(config));
      window.addEventListener("message", onMessage);
      node.appendChild(frame);
    },
    on(event, handler) {
      handlers.set(event, [...(handlers.get(event) || []), handler]);
      return element;
    },
    once(event, handler) {
      const wrapped = (payload) => { element.off(event, wrapped); handler(payload); };
      return element.on(event, wrapped);
    },
    off(event, handler) {
      handlers.set(event, (handlers.get(event) || []).filter((h) => h !== handler && handler !== undefined));
      return element;
    },
    update(next) {
      Object.assign(elementOptions, next || {});
    },
    focus() { frame && frame.focus(); },
    blur() {},
    clear() { element._ask("clear", {}); },
    collapse() {},
    unmount() {
      window.removeEventListener("message", onMessage);
      if (frame) frame.remove();
      frame = null;
    },
    destroy() {
      element.unmount();
      group._payment = null;
    },
    _ask(type, body) {
      if (!frame || !frame.contentWindow) return Promise.resolve({ error: integrationError("The Payment Element is not mounted.") });
      const id = ++asked;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        frame.contentWindow.postMessage({ type, id, ...body }, ORIGIN);
      });
    },
  };
  return element;
}

/**
 * 3-D Secure in place: the bank's page in a modal iframe; resolves when the
 * shopper has answered it, or with an error when the window closes first
 * (closeAtOnce: it closes as soon as the bank's page has loaded).
 */
function challenge(clientSecret, closeAtOnce) {
  const id = clientSecret.slice(0, clientSecret.indexOf("_secret_"));
  return new Promise((resolve) => {
    const overlay = document.createElement("div");
    overlay.setAttribute("role", "dialog");
    overlay.setAttribute("aria-modal", "true");
    overlay.setAttribute("aria-label", "Authenticate your payment");
    overlay.style.cssText = "position:fixed;inset:0;background:rgba(0,0,0,.45);display:flex;align-items:center;justify-content:center;z-index:2147483647;";
    const frame = document.createElement("iframe");
    frame.title = "3D Secure authentication";
    frame.style.cssText = "border:0;background:#fff;width:min(28rem,94vw);height:min(26rem,90vh);border-radius:8px;";
    frame.src = ORIGIN + "/_emulator/3ds/" + encodeURIComponent(id) + "?client_secret=" + encodeURIComponent(clientSecret) + "&parent=" + encodeURIComponent(location.origin);
    const onMessage = (event) => {
      if (event.origin !== ORIGIN || event.source !== frame.contentWindow) return;
      const message = event.data || {};
      if (message.type !== "three_d_secure_finished") return;
      window.removeEventListener("message", onMessage);
      overlay.remove();
      resolve({ paymentIntent: message.paymentIntent });
    };
    window.addEventListener("message", onMessage);
    if (closeAtOnce)
      frame.addEventListener("load", () => {
        window.removeEventListener("message", onMessage);
        overlay.remove();
        resolve({ error: { type: "invalid_request_error", code: "payment_intent_authentication_failure", message: "The authentication window was closed before it was completed." } });
      }, { once: true });
    overlay.appendChild(frame);
    document.body.appendChild(overlay);
  });
}

window.Stripe = Stripe;
})();
`;
}

/** The iframe's half: the card fields, their checks, and the one request that carries the card. */
function paymentFrame(origin: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Secure payment input frame</title>
<style>
  body { margin: 0; font: 16px/1.4 system-ui, sans-serif; color: #1a1a1a; background: transparent; }
  form { display: grid; gap: .75rem; padding: 2px; }
  .row { display: grid; grid-template-columns: 1fr 1fr; gap: .75rem; }
  label { display: grid; gap: .25rem; font-size: .9rem; font-weight: 600; }
  input { font: inherit; padding: .6rem .7rem; border: 1px solid #767676; border-radius: 6px; background: #fff; color: #1a1a1a; min-width: 0; }
  input:focus { outline: 2px solid #0a5cd6; outline-offset: 1px; }
  input[aria-invalid="true"] { border-color: #b3261e; }
  .error { color: #b3261e; font-size: .85rem; font-weight: 400; margin: 0; min-height: 0; }
  .error:empty { display: none; }
  .note { color: #4d4d4d; font-size: .8rem; margin: 0; }
  [role="tablist"] { display: flex; gap: .5rem; }
  [role="tab"] { font: inherit; padding: .5rem .8rem; border: 1px solid #767676; border-radius: 6px; background: #fff; }
  [role="tab"][aria-selected="true"] { border-color: #0a5cd6; outline: 1px solid #0a5cd6; }
  [hidden] { display: none !important; }
</style>
</head>
<body>
<form novalidate>
  <div role="tablist" aria-label="Payment method" hidden>
    <button type="button" role="tab" data-type="card" aria-selected="true">Card</button>
    <button type="button" role="tab" data-type="sepa_debit" aria-selected="false" hidden>SEPA Debit</button>
    <button type="button" role="tab" data-type="ideal" aria-selected="false" hidden>iDEAL</button>
    <button type="button" role="tab" data-type="bancontact" aria-selected="false" hidden>Bancontact</button>
  </div>
  <div data-panel="ideal" class="panel" hidden>
    <p class="note">After you press Pay, your bank asks you to approve the payment (iDEAL), then sends you back here.</p>
  </div>
  <div data-panel="bancontact" class="panel" hidden>
    <p class="note">After you press Pay, your bank asks you to approve the payment (Bancontact), then sends you back here.</p>
  </div>
  <div data-panel="sepa_debit" class="panel" hidden>
    <label>Full name
      <input name="name" autocomplete="name" aria-describedby="name-error">
      <p class="error" id="name-error" role="alert"></p>
    </label>
    <label>Email
      <input name="email" type="email" autocomplete="email" aria-describedby="email-error">
      <p class="error" id="email-error" role="alert"></p>
    </label>
    <label>IBAN
      <input name="iban" autocomplete="off" placeholder="DE00 0000 0000 0000 0000 00" aria-describedby="iban-error" maxlength="42">
      <p class="error" id="iban-error" role="alert"></p>
    </label>
    <p class="note mandate">By providing your payment information and confirming this payment, you authorise (A) the shop and Stripe, our payment service provider, to send instructions to your bank to debit your account and (B) your bank to debit your account in accordance with those instructions. As part of your rights, you are entitled to a refund from your bank under the terms and conditions of your agreement with your bank. A refund must be claimed within 8 weeks starting from the date on which your account was debited.</p>
    <p class="note">Stripe emulator: test IBANs only, such as DE89 3704 0044 0532 0130 00.</p>
  </div>
  <div data-panel="card" class="panel">
  <label>Card number
    <input name="number" inputmode="numeric" autocomplete="cc-number" placeholder="1234 1234 1234 1234" aria-describedby="number-error" maxlength="23">
    <p class="error" id="number-error" role="alert"></p>
  </label>
  <div class="row">
    <label>Expiration date
      <input name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="MM / YY" aria-describedby="expiry-error" maxlength="7">
      <p class="error" id="expiry-error" role="alert"></p>
    </label>
    <label>Security code
      <input name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="CVC" aria-describedby="cvc-error" maxlength="4">
      <p class="error" id="cvc-error" role="alert"></p>
    </label>
  </div>
  <label>Postal code
    <input name="postalCode" autocomplete="postal-code" placeholder="12345" aria-describedby="postalCode-error" maxlength="10">
    <p class="error" id="postalCode-error" role="alert"></p>
  </label>
  <p class="note">Stripe emulator: test cards only, such as 4242 4242 4242 4242.</p>
  </div>
</form>
<script>
(() => {
"use strict";
const ORIGIN = ${JSON.stringify(origin)};
const config = JSON.parse(decodeURIComponent(location.hash.slice(1) || "%7B%7D"));
const PARENT = config.parent;
const KEY = config.key;
const cardProblem = ${cardProblem.toString()};
const field = (name) => document.querySelector('input[name="' + name + '"]');
const FIELDS = { card: ["number", "expiry", "cvc", "postalCode"], sepa_debit: ["name", "email", "iban"], ideal: [], bancontact: [] };
const TYPES = (Array.isArray(config.types) ? config.types : ["card"]).filter((type) => FIELDS[type]);
let type = "card";
let names = FIELDS.card;
// Tabs as the Payment Element shows them, when the shop takes more than cards.
if (TYPES.length > 1) {
  document.querySelector('[role="tablist"]').hidden = false;
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    tab.hidden = !TYPES.includes(tab.dataset.type);
    tab.addEventListener("click", () => choose(tab.dataset.type));
  }
}
function choose(next) {
  type = next;
  names = FIELDS[next];
  for (const tab of document.querySelectorAll('[role="tab"]')) tab.setAttribute("aria-selected", String(tab.dataset.type === next));
  for (const panel of document.querySelectorAll("[data-panel]")) panel.hidden = panel.dataset.panel !== next;
  submitted = false;
  touched = new Set();
  show(false);
  change();
}
let submitted = false;
let touched = new Set();

const digits = (value) => value.replace(/\\D/g, "");
const isAmex = (number) => /^3[47]/.test(number);
function format() {
  const number = digits(field("number").value).slice(0, 19);
  field("number").value = isAmex(number)
    ? [number.slice(0, 4), number.slice(4, 10), number.slice(10, 15)].filter(Boolean).join(" ")
    : number.replace(/(\\d{4})(?=\\d)/g, "$1 ");
  const expiry = digits(field("expiry").value).slice(0, 4);
  field("expiry").value = expiry.length > 2 ? expiry.slice(0, 2) + " / " + expiry.slice(2) : expiry;
  field("cvc").value = digits(field("cvc").value).slice(0, 4);
}
function read() {
  const expiry = digits(field("expiry").value);
  return {
    number: digits(field("number").value),
    expMonth: Number(expiry.slice(0, 2)),
    expYear: 2000 + Number(expiry.slice(2, 4)),
    expiryDigits: expiry.length,
    cvc: field("cvc").value,
    postalCode: field("postalCode").value.trim(),
  };
}
/** Each field's problem as the element words it: incomplete first, then what Stripe would refuse. */
function problems() {
  if (type === "ideal" || type === "bancontact") return {};
  if (type === "sepa_debit") {
    const found = {};
    if (field("name").value.trim() === "") found.name = { code: "incomplete_name", message: "Your name is incomplete." };
    if (!/^[^@\s]+@[^@\s]+$/.test(field("email").value.trim())) found.email = { code: "incomplete_email", message: "Your email address is incomplete." };
    if (field("iban").value.replace(/\s/g, "").length < 15) found.iban = { code: "incomplete_iban", message: "Your IBAN is incomplete." };
    return found;
  }
  const card = read();
  const found = {};
  const now = new Date();
  const cvcLength = isAmex(card.number) ? 4 : 3;
  if (card.number.length === 0) found.number = { code: "incomplete_number", message: "Your card number is incomplete." };
  else if (card.number.length < (isAmex(card.number) ? 15 : 16)) found.number = { code: "incomplete_number", message: "Your card number is incomplete." };
  else if (cardProblem(card.number, 1, now.getFullYear() + 1, "0".repeat(cvcLength), now.getFullYear(), 1))
    found.number = { code: "invalid_number", message: "Your card number is invalid." };
  if (card.expiryDigits < 4) found.expiry = { code: "incomplete_expiry", message: "Your card's expiration date is incomplete." };
  else {
    const problem = cardProblem("4242424242424242", card.expMonth, card.expYear, "123", now.getFullYear(), now.getMonth() + 1);
    if (problem) found.expiry = { code: problem.code === "invalid_expiry_year" ? "invalid_expiry_year_past" : problem.code, message: problem.message };
  }
  if (card.cvc.length < cvcLength) found.cvc = { code: "incomplete_cvc", message: "Your card's security code is incomplete." };
  if (card.postalCode.length === 0) found.postalCode = { code: "incomplete_zip", message: "Your postal code is incomplete." };
  return found;
}
function show(all) {
  const found = problems();
  for (const name of names) {
    const problem = all || touched.has(name) ? found[name] : undefined;
    field(name).setAttribute("aria-invalid", problem ? "true" : "false");
    const box = document.getElementById(name + "-error");
    if (box.textContent !== (problem ? problem.message : "")) box.textContent = problem ? problem.message : "";
  }
  resize();
  return found;
}
function first(found) {
  for (const name of names) if (found[name]) return { name, ...found[name] };
  return null;
}
function post(message) {
  parent.postMessage(message, PARENT);
}
function resize() {
  post({ type: "height", height: Math.ceil(document.documentElement.scrollHeight) });
}
function change() {
  const found = problems();
  const empty = names.every((name) => field(name).value === "");
  const problem = first(found);
  post({ type: "change", change: { complete: !problem, empty, collapsed: false, value: { type } } });
}
for (const name of [...FIELDS.card, ...FIELDS.sepa_debit]) {
  field(name).addEventListener("input", () => { submitted = false; format(); show(false); change(); });
  field(name).addEventListener("blur", () => { touched.add(name); show(false); post({ type: "blur" }); });
  field(name).addEventListener("focus", () => post({ type: "focus" }));
}
document.querySelector("form").addEventListener("submit", (event) => event.preventDefault());

function form(params) {
  const body = new URLSearchParams();
  if (type === "ideal" || type === "bancontact") {
    body.set("payment_method_data[type]", type);
    if (typeof params.return_url === "string") body.set("return_url", params.return_url);
    return body;
  }
  if (type === "sepa_debit") {
    body.set("payment_method_data[type]", "sepa_debit");
    body.set("payment_method_data[sepa_debit][iban]", field("iban").value.replace(/\s/g, ""));
    body.set("payment_method_data[billing_details][name]", field("name").value.trim());
    body.set("payment_method_data[billing_details][email]", field("email").value.trim());
    if (typeof params.return_url === "string") body.set("return_url", params.return_url);
    return body;
  }
  const card = read();
  body.set("payment_method_data[type]", "card");
  body.set("payment_method_data[card][number]", card.number);
  body.set("payment_method_data[card][exp_month]", String(card.expMonth));
  body.set("payment_method_data[card][exp_year]", String(card.expYear));
  body.set("payment_method_data[card][cvc]", card.cvc);
  body.set("payment_method_data[billing_details][address][postal_code]", card.postalCode);
  if (typeof params.return_url === "string") body.set("return_url", params.return_url);
  return body;
}

async function answer(message) {
  if (message.type === "submit") {
    const problem = first(show(true));
    if (problem) {
      field(problem.name).focus();
      return { error: { type: "validation_error", code: problem.code, message: problem.message } };
    }
    submitted = true;
    return {};
  }
  if (message.type === "createToken") {
    if (!submitted)
      return { error: { type: "invalid_request_error", code: "integration_error", message: "elements.submit() must be called before stripe.createConfirmationToken()." } };
    try {
      const response = await fetch(ORIGIN + "/v1/confirmation_tokens", {
        method: "POST",
        headers: { Authorization: "Bearer " + KEY, "Content-Type": "application/x-www-form-urlencoded" },
        body: form(message.params || {}),
      });
      const json = await response.json();
      return response.ok ? { confirmationToken: json } : { error: json.error };
    } catch (error) {
      return { error: { type: "api_connection_error", message: "We could not reach Stripe. Check your connection and try again." } };
    }
  }
  if (message.type === "clear") {
    for (const name of names) field(name).value = "";
    touched = new Set();
    show(false);
    change();
    return {};
  }
  return { error: integration("Unknown request " + message.type) };
}
function integration(message) {
  return { type: "invalid_request_error", code: "integration_error", message };
}
window.addEventListener("message", async (event) => {
  if (event.origin !== PARENT || event.source !== parent) return;
  const message = event.data || {};
  if (typeof message.id !== "number") return;
  post({ type: "answer", id: message.id, result: await answer(message) });
});
post({ type: "ready" });
resize();
})();
</script>
</body>
</html>`;
}
