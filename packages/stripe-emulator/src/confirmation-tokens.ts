import { brandOf, cardFactsOf, testTokenFor } from "./card-numbers";
import { cardFor } from "./cards";
import { notExecuted, type Ctx, type Outcome } from "./context";
import type { Params } from "./form";
import { randomId, unixSeconds } from "./ids";
import type { CardFacts } from "./ledger";
import { bankRedirectFacts, bankRedirectToken, isBankRedirectType, type BankRedirectFacts } from "./bank-redirects";
import { UNKNOWN_TEST_IBAN, sepaFactsOf, sepaTokenFor, type SepaDebitFacts } from "./sepa";
import { invalidRequest, ok, resourceMissing, stripeError, type ApiResponse } from "./responses";
import { returnUrlError, unknownParam, unknownPaymentMethod } from "./validation";

/**
 * ConfirmationTokens: what Stripe.js makes of the card the shopper typed
 * (`POST /v1/confirmation_tokens`, publishable key), or what a server makes
 * of a test payment method where no browser is at hand
 * (`POST /v1/test_helpers/confirmation_tokens`, secret key). A token confirms
 * one PaymentIntent, once, before it expires; the test token it stands for
 * decides how the charge goes.
 */
export interface ConfirmationToken {
  id: string;
  object: "confirmation_token";
  created: number;
  /** Null once the token has confirmed an intent. */
  expires_at: number | null;
  livemode: false;
  metadata: null;
  payment_intent: string | null;
  payment_method_options: null;
  /** The customer's acceptance of a SEPA mandate, as the Payment Element collects it; null otherwise. */
  mandate_data: {
    customer_acceptance: { type: "online"; online: { ip_address: string | null; user_agent: string | null } };
  } | null;
  payment_method_preview: {
    billing_details: {
      address: { city: null; country: null; line1: null; line2: null; postal_code: string | null; state: null };
      email: string | null;
      name: string | null;
      phone: null;
      tax_id: null;
    };
    customer: null;
    customer_account: null;
  } & (
    | {
        type: "card";
        /** The PaymentMethod's card, as Stripe previews it (without `regulated_status`). */
        card: Omit<CardFacts, "regulated_status">;
      }
    | { type: "sepa_debit"; sepa_debit: SepaDebitFacts }
    | BankRedirectFacts
  );
  return_url: string | null;
  setup_future_usage: null;
  setup_intent: null;
  shipping: null;
  use_stripe_sdk: boolean;
}

interface Stored {
  token: ConfirmationToken;
  /** The test payment method (`pm_card_*`) the card stands for. */
  testToken: string;
}

export class ConfirmationTokens {
  private readonly tokens = new Map<string, Stored>();

  add(stored: Stored): void {
    this.tokens.set(stored.token.id, stored);
  }

  get(id: string): Stored | undefined {
    return this.tokens.get(id);
  }
}

const ELEMENT_PARAMS = new Set(["payment_method_data", "return_url", "expand"]);
const HELPER_PARAMS = new Set(["payment_method", "payment_method_data", "return_url", "expand"]);

/** `POST /v1/confirmation_tokens`: the element's card, checked as Stripe checks it (publishable key only). */
export function createFromElement(ctx: Ctx, params: Params): Outcome {
  const rejected = unknownParam(params, ELEMENT_PARAMS) ?? returnUrlError(params.return_url);
  if (rejected) return notExecuted(rejected);
  const data = objectOf(params.payment_method_data);
  if (data?.type === "sepa_debit") return sepaToken(ctx, data, params, { useStripeSdk: true, fromElement: true });
  if (data && isBankRedirectType(data.type)) return redirectToken(ctx, data.type, data, params, true);
  const card = objectOf(data?.card);
  if (data?.type !== "card" || !card)
    return notExecuted(
      invalidRequest(
        "The emulator's Payment Element takes cards, SEPA debits, iDEAL and Bancontact: payment_method_data[type]=card, sepa_debit, ideal or bancontact.",
        { param: "payment_method_data[type]" },
      ),
    );
  const number = String(card.number ?? "").replace(/\s/g, "");
  const details = {
    number,
    expMonth: Number(card.exp_month),
    expYear: Number(card.exp_year),
    cvc: String(card.cvc ?? ""),
  };
  const found = testTokenFor(details);
  if ("refused" in found) {
    return notExecuted(
      stripeError(402, {
        type: "card_error",
        code: found.refused.code,
        message: found.refused.message,
        param: found.refused.param,
        ...(found.refused.code === "card_declined" ? { decline_code: "test_mode_live_card" } : {}),
      }),
    );
  }
  const billing = objectOf(data.billing_details);
  const postalCode = objectOf(billing?.address)?.postal_code;
  return store(ctx, found.token, {
    brand: brandOf(number),
    last4: number.slice(-4),
    expMonth: details.expMonth,
    expYear: details.expYear,
    postalCode: typeof postalCode === "string" ? postalCode : null,
    returnUrl: typeof params.return_url === "string" ? params.return_url : null,
    // Made by Stripe.js: a next action is for Stripe.js to handle (handleNextAction).
    useStripeSdk: true,
  });
}

/** `POST /v1/test_helpers/confirmation_tokens`: a token for a test payment method (`pm_card_visa`), secret key. */
export function createForTest(ctx: Ctx, params: Params): Outcome {
  const rejected = unknownParam(params, HELPER_PARAMS) ?? returnUrlError(params.return_url);
  if (rejected) return notExecuted(rejected);
  const data = objectOf(params.payment_method_data);
  if (data && params.payment_method === undefined) {
    if (data.type === "sepa_debit") return sepaToken(ctx, data, params, { useStripeSdk: false, fromElement: false });
    if (isBankRedirectType(data.type)) return redirectToken(ctx, data.type, data, params, false);
    return notExecuted(
      invalidRequest(
        "The emulator's test helper takes payment_method_data[type]=sepa_debit, ideal or bancontact; for a card, a payment_method.",
        {
          param: "payment_method_data[type]",
        },
      ),
    );
  }
  const paymentMethod = params.payment_method;
  if (typeof paymentMethod !== "string")
    return notExecuted(
      invalidRequest("The emulator makes test ConfirmationTokens from a test payment_method such as pm_card_visa.", {
        code: "parameter_missing",
        param: "payment_method",
      }),
    );
  const testToken = ctx.ledger.paymentMethods.tokenOf(paymentMethod) ?? paymentMethod;
  if (!cardFor(testToken)) return notExecuted(unknownPaymentMethod(paymentMethod));
  const card = cardFactsOf(testToken);
  return store(ctx, testToken, {
    brand: card.brand,
    last4: card.last4,
    expMonth: 12,
    expYear: new Date().getFullYear() + 3,
    postalCode: null,
    returnUrl: typeof params.return_url === "string" ? params.return_url : null,
    // No Stripe.js: a 3-D Secure step is a redirect to return_url.
    useStripeSdk: false,
  });
}

/** `GET /v1/confirmation_tokens/{id}` (secret key). */
export function retrieveToken(ctx: Ctx, id: string, params: Params): ApiResponse {
  const rejected = unknownParam(params, new Set(["expand"]));
  if (rejected) return rejected;
  const stored = ctx.ledger.confirmationTokens.get(id);
  return stored ? ok(structuredClone(stored.token)) : resourceMissing("confirmation_token", id, "confirmation_token");
}

/**
 * The token a PaymentIntent create names, if it can confirm one now; else the
 * error. Checked before the intent exists, so a refused token creates nothing.
 */
export function usableToken(ctx: Ctx, id: Params[string] | undefined): Stored | ApiResponse {
  const stored = typeof id === "string" ? ctx.ledger.confirmationTokens.get(id) : undefined;
  // A token named in a create's parameters, as any object so named: 400, not the 404 of an object in the URL.
  const missing = () =>
    invalidRequest(`No such confirmation_token: '${String(id)}'`, {
      code: "resource_missing",
      param: "confirmation_token",
    });
  if (!stored) return missing();
  if (stored.token.payment_intent !== null) {
    return invalidRequest(
      `This ConfirmationToken has already been used to confirm ${stored.token.payment_intent}. Create a new ConfirmationToken with Stripe.js to try again.`,
      { code: "token_already_used", param: "confirmation_token" },
    );
  }
  // Assumed: Stripe's error codes name no expired token, so an expired one answers as one it no longer has.
  if (stored.token.expires_at !== null && stored.token.expires_at <= unixSeconds()) return missing();
  return stored;
}

/**
 * A SEPA debit's token. The Payment Element shows the mandate and records the
 * shopper's acceptance on the token; the test helper's token carries none,
 * so the create that confirms it must send `mandate_data`.
 */
function sepaToken(
  ctx: Ctx,
  data: Params,
  params: Params,
  how: { useStripeSdk: boolean; fromElement: boolean },
): Outcome {
  const iban = objectOf(data.sepa_debit)?.iban;
  if (typeof iban !== "string" || iban.trim() === "")
    return notExecuted(
      invalidRequest("Missing required param: payment_method_data[sepa_debit][iban].", {
        code: "parameter_missing",
        param: "payment_method_data[sepa_debit][iban]",
      }),
    );
  const testToken = sepaTokenFor(iban);
  if (!testToken)
    return notExecuted(
      invalidRequest(UNKNOWN_TEST_IBAN, {
        code: "invalid_bank_account_iban",
        param: "payment_method_data[sepa_debit][iban]",
      }),
    );
  const billing = objectOf(data.billing_details);
  const text = (value: Params[string] | undefined) => (typeof value === "string" && value !== "" ? value : null);
  const created = unixSeconds();
  const token: ConfirmationToken = {
    id: randomId("ctoken_"),
    object: "confirmation_token",
    created,
    expires_at: created + Math.floor(ctx.confirmationTokenTtlMs / 1000),
    livemode: false,
    mandate_data: how.fromElement
      ? {
          customer_acceptance: {
            type: "online",
            // Stripe infers both from the browser; the stand-in does not see them, so it leaves them null.
            online: { ip_address: null, user_agent: null },
          },
        }
      : null,
    metadata: null,
    payment_intent: null,
    payment_method_options: null,
    payment_method_preview: {
      type: "sepa_debit",
      billing_details: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
        email: text(billing?.email),
        name: text(billing?.name),
        phone: null,
        tax_id: null,
      },
      sepa_debit: sepaFactsOf(testToken),
      customer: null,
      customer_account: null,
    },
    return_url: typeof params.return_url === "string" ? params.return_url : null,
    setup_future_usage: null,
    setup_intent: null,
    shipping: null,
    use_stripe_sdk: how.useStripeSdk,
  };
  ctx.ledger.confirmationTokens.add({ token, testToken });
  ctx.stats.confirmationTokens += 1;
  return { response: ok(structuredClone(token)), executed: true, charge: null };
}

/**
 * An iDEAL or Bancontact token: nothing to check, the shopper decides at their
 * bank. Stripe's Payment Element asks for nothing more (iDEAL's bank list is
 * optional and the emulator offers none).
 */
function redirectToken(
  ctx: Ctx,
  type: "ideal" | "bancontact",
  data: Params,
  params: Params,
  useStripeSdk: boolean,
): Outcome {
  const billing = objectOf(data.billing_details);
  const text = (value: Params[string] | undefined) => (typeof value === "string" && value !== "" ? value : null);
  const created = unixSeconds();
  const token: ConfirmationToken = {
    id: randomId("ctoken_"),
    object: "confirmation_token",
    created,
    expires_at: created + Math.floor(ctx.confirmationTokenTtlMs / 1000),
    livemode: false,
    mandate_data: null,
    metadata: null,
    payment_intent: null,
    payment_method_options: null,
    payment_method_preview: {
      billing_details: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
        email: text(billing?.email),
        name: text(billing?.name),
        phone: null,
        tax_id: null,
      },
      ...bankRedirectFacts(type),
      customer: null,
      customer_account: null,
    },
    return_url: typeof params.return_url === "string" ? params.return_url : null,
    setup_future_usage: null,
    setup_intent: null,
    shipping: null,
    use_stripe_sdk: useStripeSdk,
  };
  ctx.ledger.confirmationTokens.add({ token, testToken: bankRedirectToken(type) });
  ctx.stats.confirmationTokens += 1;
  return { response: ok(structuredClone(token)), executed: true, charge: null };
}

function store(
  ctx: Ctx,
  testToken: string,
  card: {
    brand: string;
    last4: string;
    expMonth: number;
    expYear: number;
    postalCode: string | null;
    returnUrl: string | null;
    useStripeSdk: boolean;
  },
): Outcome {
  const created = unixSeconds();
  const token: ConfirmationToken = {
    id: randomId("ctoken_"),
    object: "confirmation_token",
    created,
    expires_at: created + Math.floor(ctx.confirmationTokenTtlMs / 1000),
    livemode: false,
    mandate_data: null,
    metadata: null,
    payment_intent: null,
    payment_method_options: null,
    payment_method_preview: {
      type: "card",
      billing_details: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: card.postalCode, state: null },
        email: null,
        name: null,
        phone: null,
        tax_id: null,
      },
      card: {
        brand: card.brand,
        checks: null,
        country: "US",
        display_brand: card.brand,
        exp_month: card.expMonth,
        exp_year: card.expYear,
        // The number's, as at Stripe: the same card typed again, or its test payment method, has the same one.
        fingerprint: cardFactsOf(testToken).fingerprint,
        funding: "credit",
        generated_from: null,
        last4: card.last4,
        networks: { available: [card.brand], preferred: null },
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      customer: null,
      customer_account: null,
    },
    return_url: card.returnUrl,
    setup_future_usage: null,
    setup_intent: null,
    shipping: null,
    use_stripe_sdk: card.useStripeSdk,
  };
  ctx.ledger.confirmationTokens.add({ token, testToken });
  ctx.stats.confirmationTokens += 1;
  return { response: ok(structuredClone(token)), executed: true, charge: null };
}

function objectOf(value: Params[string] | undefined): Params | null {
  return typeof value === "object" && !Array.isArray(value) ? value : null;
}
