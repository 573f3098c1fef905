import type Stripe from "stripe";
import type { PrismaClient } from "../generated/prisma/client";
import { isUuid } from "../uuid";

/** An order and the checkout attempt (idempotency record) that created it, as a webhook finds them. */
export interface PaymentAttempt {
  order: {
    id: string;
    status: "pending" | "processing" | "paid" | "failed";
    amountCents: number;
    currency: string;
    paymentMethod: string | null;
    paymentIntentId: string | null;
    refundReason: string | null;
  };
  /** Null once retention removed the record (finished attempts only). */
  record: {
    id: string;
    status: "in_progress" | "completed" | "failed";
    lockToken: string | null;
    subjectId: string;
    key: string;
  } | null;
}

/**
 * The attempt a PaymentIntent belongs to: by the `orderId` the app put in its
 * metadata at creation (found even before the intent's id was recorded on the
 * order, e.g. when the app died between Stripe's answer and that write), or
 * by the intent's id on the order.
 */
export async function findPaymentAttempt(
  prisma: PrismaClient,
  intent: Pick<Stripe.PaymentIntent, "id" | "metadata">,
): Promise<PaymentAttempt | null> {
  const orderId = intent.metadata?.orderId;
  const order = await prisma.order.findFirst({
    where:
      orderId && isUuid(orderId)
        ? { OR: [{ id: orderId.toLowerCase() }, { paymentIntentId: intent.id }] }
        : { paymentIntentId: intent.id },
    select: {
      id: true,
      status: true,
      amountCents: true,
      currency: true,
      paymentMethod: true,
      paymentIntentId: true,
      refundReason: true,
      idempotencyKey: { select: { id: true, status: true, lockToken: true, subjectId: true, key: true } },
    },
  });
  if (!order) return null;
  const { idempotencyKey, ...rest } = order;
  return { order: rest, record: idempotencyKey };
}
