import { z } from "zod";
import { issuesOf, type ValidationIssue } from "@/lib/validation";

/** The message of every 400 about a checkout's body (its shape, or products that do not exist). */
export const INVALID_CHECKOUT = "The checkout request is not valid.";

/** A cart: products by sku and how many of each, priced by the shop. */
export const checkoutItemsSchema = z
  .array(
    z.strictObject({
      sku: z.string().min(1).max(64),
      quantity: z.number().int().min(1).max(99),
    }),
  )
  .min(1)
  .max(50)
  .refine((items) => new Set(items.map((i) => i.sku)).size === items.length, {
    message: "each sku may appear once; use quantity for more",
  });

/**
 * The body of `POST /api/checkout` (docs/contract.md §2): what to pay — the
 * customer's checkout (`checkoutId`, from `POST /api/checkouts`, with its
 * lines as `items` if the client shows them) or a cart of items (a checkout
 * of its own), where to send the receipt (optional) — and how to pay for it, exactly one of a ConfirmationToken Stripe.js made from the card
 * the shopper typed (`ctoken_…`) or a PaymentMethod (a test token such as
 * `pm_card_visa`, or a saved `pm_…`). Prices never come from here.
 */
export const checkoutRequestSchema = z
  .object({
    items: checkoutItemsSchema.optional(),
    checkoutId: z.uuid({ message: "must be a checkout id from POST /api/checkouts" }).optional(),
    paymentMethod: z
      .string()
      .regex(/^pm_[A-Za-z0-9_]{1,100}$/, "must be a Stripe PaymentMethod id such as pm_card_visa")
      .optional(),
    /** What the Payment Element's token is (card when absent); the shop refuses a type it does not enable. */
    paymentMethodType: z.enum(["card", "sepa_debit", "ideal", "bancontact"]).optional(),
    confirmationToken: z
      .string()
      .regex(/^ctoken_[A-Za-z0-9_]{1,200}$/, "must be a Stripe ConfirmationToken id (ctoken_…) from Stripe.js")
      .optional(),
    /** Where Stripe emails the receipt (its `receipt_email`); part of the body, so of the key's fingerprint. */
    receiptEmail: z.email("must be an email address").max(254).optional(),
  })
  .strict()
  .refine((body) => (body.paymentMethod === undefined) !== (body.confirmationToken === undefined), {
    message: "send exactly one of confirmationToken (from Stripe.js) and paymentMethod",
  })
  .refine((body) => body.items !== undefined || body.checkoutId !== undefined, {
    message: "send checkoutId (from POST /api/checkouts) or items",
  });

export type CheckoutRequest = z.infer<typeof checkoutRequestSchema>;

/** What the PaymentIntent is confirmed with: the token, or the PaymentMethod (the schema allows exactly one). */
export function paymentCredential(body: CheckoutRequest): string {
  return body.confirmationToken ?? body.paymentMethod ?? "";
}

export const CHECKOUT_ENDPOINT = "POST /api/checkout";

export type { ValidationIssue };

/**
 * A checkout's body as the schema and the shop accept it, or what is wrong
 * with it: a payment method type the shop does not take (`accepted`; cards
 * when absent) is refused like a malformed body, before any claim.
 */
export function checkoutBody(
  json: unknown,
  accepted: readonly string[] = ["card"],
): { ok: true; value: CheckoutRequest } | { ok: false; issues: ValidationIssue[] } {
  const parsed = checkoutRequestSchema.safeParse(json);
  if (!parsed.success) return { ok: false, issues: issuesOf(parsed.error) };
  const type = parsed.data.paymentMethodType ?? "card";
  if (accepted.includes(type)) return { ok: true, value: parsed.data };
  return {
    ok: false,
    issues: [{ path: ["paymentMethodType"], message: `${type} is not a payment method this shop takes` }],
  };
}
