import { cardConfirmationToken, type TokenOutcome } from "@/lib/lab/browser/card-token";
import { findForm } from "./three-d-secure";

/**
 * The two calls of Stripe.js a shopper's browser makes, as the emulator's
 * Stripe.js makes them (packages/stripe-emulator/src/stripe-js.ts): the card
 * typed into the Payment Element becomes a ConfirmationToken
 * (`POST /v1/confirmation_tokens` with the publishable key, from the
 * element's iframe), and a `use_stripe_sdk` next action is completed in
 * place (`handleNextAction`: the bank's page in a modal iframe, whose form
 * the shopper submits).
 */
export interface StripeJs {
  /** The emulator's origin, where Stripe.js and its frames live. */
  url: string;
  publishableKey: string;
}

export type { TokenOutcome };

/** `stripe.createConfirmationToken({ elements })` after the shopper typed `number`. */
export function createConfirmationToken(stripeJs: StripeJs, number: string): Promise<TokenOutcome> {
  return cardConfirmationToken(
    { apiOrigin: stripeJs.url, publishableKey: stripeJs.publishableKey },
    number,
    AbortSignal.timeout(10_000),
  );
}

/**
 * `stripe.handleNextAction({ clientSecret })`: the bank's page opened in the
 * shop's page (`parent` is the shop's origin), the shopper's button submitted,
 * and what the page then tells the shop's page: the PaymentIntent's id and
 * status (never its secret).
 */
export async function handleNextAction(
  stripeJs: StripeJs,
  clientSecret: string,
  parent: string,
  choice: "complete" | "fail",
): Promise<{ id: string; status: string }> {
  const id = clientSecret.slice(0, clientSecret.indexOf("_secret_"));
  const url = new URL(`/_emulator/3ds/${encodeURIComponent(id)}`, stripeJs.url);
  url.searchParams.set("client_secret", clientSecret);
  url.searchParams.set("parent", new URL(parent).origin);
  const page = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const form = findForm(await page.text(), choice === "complete" ? /complete/i : /fail/i);
  if (!form) throw new Error(`no "${choice}" form on the authentication page (HTTP ${page.status})`);
  const submitted = await fetch(new URL(form.action || url.pathname, url), {
    method: form.method,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form.fields).toString(),
    redirect: "manual",
    signal: AbortSignal.timeout(10_000),
  });
  const finished = finishedMessage(await submitted.text());
  if (submitted.status !== 200 || !finished)
    throw new Error(`the authentication page answered ${submitted.status} without telling the shop's page`);
  return finished;
}

/** The `three_d_secure_finished` message the finished page posts to the shop's page. */
export function finishedMessage(html: string): { id: string; status: string } | null {
  const match = /parent\.postMessage\((\{[\s\S]*?\}), /.exec(html);
  if (!match) return null;
  const message = JSON.parse(match[1]!) as { type?: string; paymentIntent?: { id?: unknown; status?: unknown } };
  const intent = message.paymentIntent;
  if (message.type !== "three_d_secure_finished" || typeof intent?.id !== "string" || typeof intent.status !== "string")
    return null;
  return { id: intent.id, status: intent.status };
}
