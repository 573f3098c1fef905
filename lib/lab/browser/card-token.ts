/** The emulator's API origin and the account's publishable key, which the lab's page pays with. */
export interface LabStripe {
  apiOrigin: string;
  publishableKey: string;
}

/**
 * A ConfirmationToken for the lab's card, made as the Payment Element's iframe
 * makes one (`POST /v1/confirmation_tokens` with the publishable key, on the
 * emulator's origin, never the shop's). The lab has no card field to type
 * into, so it sends Stripe's test number itself: the lab runs only against
 * the emulator, whose test cards are not card data.
 */
export async function labConfirmationToken(stripe: LabStripe, cardNumber: string): Promise<string> {
  const body = new URLSearchParams();
  body.set("payment_method_data[type]", "card");
  body.set("payment_method_data[card][number]", cardNumber);
  body.set("payment_method_data[card][exp_month]", "12");
  body.set("payment_method_data[card][exp_year]", String(new Date().getFullYear() + 3));
  body.set("payment_method_data[card][cvc]", "123");
  const response = await fetch(`${stripe.apiOrigin}/v1/confirmation_tokens`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${stripe.publishableKey}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body,
  });
  const json = (await response.json().catch(() => null)) as { id?: unknown; error?: { message?: string } } | null;
  if (response.ok && typeof json?.id === "string") return json.id;
  throw new Error(
    `Stripe made no ConfirmationToken of the lab's card: ${json?.error?.message ?? `HTTP ${response.status}`}`,
  );
}
