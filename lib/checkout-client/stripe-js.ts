import type { Stripe } from "@stripe/stripe-js";
import { loadStripe } from "@stripe/stripe-js/pure";

/**
 * Where the checkout page gets Stripe.js from, decided on the server
 * (lib/env.ts) and handed to the page: the account's publishable key, and
 * the emulator's stand-in when the shop runs against the local emulator
 * (null: Stripe's own, which `loadStripe` fetches from js.stripe.com).
 */
export interface StripeJsConfig {
  publishableKey: string;
  scriptUrl: string | null;
}

let loading: Promise<Stripe | null> | null = null;

/**
 * Stripe.js, loaded once per page and only when the card form is shown
 * (`/pure`: importing it loads nothing). The emulator's stand-in is put on
 * the page first; `loadStripe` then finds `window.Stripe` and uses it, as it
 * would use a Stripe.js already on the page.
 */
export function stripeJs(config: StripeJsConfig): Promise<Stripe | null> {
  loading ??= (config.scriptUrl ? addScript(config.scriptUrl) : Promise.resolve())
    .then(() => loadStripe(config.publishableKey))
    .catch((error: unknown) => {
      loading = null; // a later render may try again
      throw error;
    });
  return loading;
}

function addScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.async = true;
    script.addEventListener("load", () => resolve());
    script.addEventListener("error", () => reject(new Error(`Stripe.js could not be loaded from ${src}`)));
    document.head.appendChild(script);
  });
}
