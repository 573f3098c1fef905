import { z } from "zod";

/** The message of every 400 about a checkout's body (its shape, or products that do not exist). */
export const INVALID_CHECKOUT = "The checkout request is not valid.";

/** The body of `POST /api/checkout` (docs/contract.md §2). Prices never come from here. */
export const checkoutRequestSchema = z
  .object({
    items: z
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
      }),
    paymentMethod: z
      .string()
      .regex(/^pm_[A-Za-z0-9_]{1,100}$/, "must be a Stripe PaymentMethod id such as pm_card_visa"),
  })
  .strict();

export type CheckoutRequest = z.infer<typeof checkoutRequestSchema>;

export const CHECKOUT_ENDPOINT = "POST /api/checkout";

export type { ValidationIssue } from "@/lib/validation";
