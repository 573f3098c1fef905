import type { PaymentIntent } from "./ledger";
import { invalidRequest, type ApiResponse } from "./responses";

// Who may confirm an intent (`confirmation_method`). Automatic, Stripe's
// default: also the browser, with the publishable key and the intent's
// client_secret (Stripe.js), and no confirmation is needed after the
// shopper's 3-D Secure. Manual: only the secret key; after 3-D Secure the
// intent waits in requires_confirmation for the server to confirm it.

export type ConfirmationMethod = "automatic" | "manual";

const METHODS: readonly string[] = ["automatic", "manual"];

export function confirmationMethodError(value: unknown): ApiResponse | null {
  if (value === undefined || (typeof value === "string" && METHODS.includes(value))) return null;
  return invalidRequest(`Invalid confirmation_method: must be one of ${METHODS.join(", ")}`, {
    param: "confirmation_method",
  });
}

/**
 * A confirm made with a publishable key, as Stripe.js makes it: it must carry
 * the intent's client_secret, and the intent must allow automatic
 * confirmation. The manual refusal's message is Stripe's as reported by its
 * users; its status (400) and the absence of a code are assumed, as are the
 * two client_secret messages' status and param.
 */
export function publishableConfirmRefusal(intent: PaymentIntent, clientSecret: unknown): ApiResponse | null {
  if (clientSecret === undefined)
    return invalidRequest("Missing required param: client_secret.", { param: "client_secret" });
  if (clientSecret !== intent.client_secret)
    return invalidRequest(
      "The client_secret provided does not match the client_secret associated with the PaymentIntent.",
      { param: "client_secret" },
    );
  if (intent.confirmation_method === "manual")
    return invalidRequest(
      `This PaymentIntent ${intent.id} cannot be confirmed using your publishable key because its \`confirmation_method\` is set to \`manual\`. Please use your secret key instead, or create a PaymentIntent with \`confirmation_method\` set to \`automatic\`.`,
    );
  return null;
}
