import { z } from "zod";

/**
 * The stored answers of a checkout attempt, one schema for the server that
 * writes them (lib/checkout/checkout.ts) and the browser that reads them:
 * `201` paid, `202` waiting for the shopper or processing at Stripe, `402` declined or failed. A
 * replay sends the same bytes, so every copy of an answer parses alike.
 */
export const paidAnswer = z.object({
  orderId: z.string().nullable(),
  status: z.literal("paid"),
  amountCents: z.number().int(),
  currency: z.string(),
  paymentIntentId: z.string(),
});

export const nextActionSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("redirect"), url: z.string() }),
  z.object({ type: z.literal("use_stripe_sdk"), clientSecret: z.string() }),
]);

export const actionAnswer = z.object({
  status: z.literal("requires_action"),
  orderId: z.string(),
  nextAction: nextActionSchema,
});

/** Stripe accepted the payment and decides it later: nothing more for the shopper to do, and no second payment. */
export const processingAnswer = z.object({
  status: z.literal("processing"),
  orderId: z.string(),
  paymentIntentId: z.string(),
});

export const declinedAnswer = z.object({
  error: z.literal("card_declined"),
  declineCode: z.string(),
  message: z.string(),
  orderId: z.string().nullable(),
});

export const failedAnswer = z.object({
  error: z.string(),
  message: z.string(),
  code: z.string().optional(),
  orderId: z.string().nullable(),
});

/** Any stored answer, by its status code. */
export const checkoutAnswers = {
  201: paidAnswer,
  202: z.union([actionAnswer, processingAnswer]),
  402: z.union([declinedAnswer, failedAnswer]),
};

export type PaidAnswer = z.infer<typeof paidAnswer>;
export type ActionAnswer = z.infer<typeof actionAnswer>;
export type ProcessingAnswer = z.infer<typeof processingAnswer>;
export type DeclinedAnswer = z.infer<typeof declinedAnswer>;
export type FailedAnswer = z.infer<typeof failedAnswer>;
export type CheckoutAnswer = PaidAnswer | ActionAnswer | ProcessingAnswer | DeclinedAnswer | FailedAnswer;

/** A stored answer's body as the schema of its status reads it; null for a status or a shape it does not know. */
export function readCheckoutAnswer(statusCode: number, body: unknown): CheckoutAnswer | null {
  const schema = (checkoutAnswers as Record<number, z.ZodType<CheckoutAnswer> | undefined>)[statusCode];
  const parsed = schema?.safeParse(body);
  return parsed?.success ? parsed.data : null;
}
