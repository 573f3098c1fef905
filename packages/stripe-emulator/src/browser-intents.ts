import { send, type Reply } from "./api";
import { authenticate } from "./auth";
import type { PaymentIntent } from "./ledger";
import { resourceMissing } from "./responses";
import type { State } from "./state";

/** `GET /v1/payment_intents/{id}` with a publishable key: what Stripe.js reads before it handles a next action. */
export const BROWSER_INTENT_PATH = /^\/v1\/payment_intents\/(pi_\w+)$/;

/** The header that tells the Stripe.js stand-in how to fail (an armed `stripeJs` fault); not one of Stripe's. */
export const STRIPE_JS_FAILURE_HEADER = "Stripe-Emulator-Stripe-Js-Failure";

/** True when the request is the browser's read of an intent (a publishable key), served here rather than by the API. */
export function isBrowserIntentRead(method: string, pathname: string, authorization: string | undefined): boolean {
  if (method !== "GET" || !BROWSER_INTENT_PATH.test(pathname)) return false;
  const auth = authenticate(authorization);
  return auth.ok && auth.publishable;
}

/**
 * The intent as Stripe.js reads it with the publishable key and the intent's
 * client secret: a secret that does not match is answered as an unknown
 * intent. An armed Stripe.js failure is spent here and travels in a header:
 * even `network`, since a browser retries a GET whose reused connection
 * drops, so a dropped connection would not fail reliably.
 */
export function browserIntentRead(state: State, url: URL): Reply {
  const id = BROWSER_INTENT_PATH.exec(url.pathname)?.[1] ?? "";
  const intent = state.ledger.get(id);
  if (!intent || url.searchParams.get("client_secret") !== intent.client_secret)
    return send(resourceMissing("payment_intent", id, "intent"));
  const failure = state.faults.takeStripeJsFailure();
  return send({ status: 200, body: publishableView(intent) }, failure ? { [STRIPE_JS_FAILURE_HEADER]: failure } : {});
}

/** Stripe answers a publishable key with the intent's public fields only (no metadata, customer or description). */
function publishableView(intent: PaymentIntent) {
  const { id, object, amount, currency, status, client_secret, next_action, last_payment_error, livemode, created } =
    intent;
  return structuredClone({
    id,
    object,
    amount,
    currency,
    status,
    client_secret,
    next_action,
    last_payment_error,
    livemode,
    created,
    payment_method: intent.payment_method,
  });
}
