/** The emulator's API origin and the account's publishable key, which the lab's page pays with. */
export interface LabStripe {
  apiOrigin: string;
  publishableKey: string;
}

export type TokenOutcome =
  | { kind: "token"; id: string }
  /** Stripe would not make a token of the card: what the element shows the shopper. */
  | { kind: "refused"; status: number; code: string; message: string };

/**
 * `stripe.createConfirmationToken` as the Payment Element's iframe makes it
 * for a typed card: `POST /v1/confirmation_tokens` with the publishable key,
 * on the emulator's origin, never the shop's. Used by the lab and by the chaos
 * soak's shoppers, which have no card field to type into.
 */
export async function cardConfirmationToken(
  stripe: LabStripe,
  cardNumber: string,
  signal?: AbortSignal,
): Promise<TokenOutcome> {
  const body = new URLSearchParams();
  body.set("payment_method_data[type]", "card");
  body.set("payment_method_data[card][number]", cardNumber);
  body.set("payment_method_data[card][exp_month]", "12");
  body.set("payment_method_data[card][exp_year]", String(new Date().getFullYear() + 3));
  body.set("payment_method_data[card][cvc]", cardNumber.length === 15 ? "1234" : "123");
  body.set("payment_method_data[billing_details][address][postal_code]", "10001");
  const response = await fetch(`${stripe.apiOrigin}/v1/confirmation_tokens`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${stripe.publishableKey}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body,
    signal,
  });
  const json = (await response.json().catch(() => null)) as {
    id?: unknown;
    error?: { code?: string; message?: string };
  } | null;
  if (response.ok && typeof json?.id === "string") return { kind: "token", id: json.id };
  return {
    kind: "refused",
    status: response.status,
    code: json?.error?.code ?? `http_${response.status}`,
    message: json?.error?.message ?? "",
  };
}

/**
 * A ConfirmationToken for the lab's card. The lab runs only against the
 * emulator, whose test cards are not card data.
 */
export async function labConfirmationToken(stripe: LabStripe, cardNumber: string): Promise<string> {
  const made = await cardConfirmationToken(stripe, cardNumber);
  if (made.kind === "token") return made.id;
  throw new Error(`Stripe made no ConfirmationToken of the lab's card: ${made.message || `HTTP ${made.status}`}`);
}
