import "server-only";
import type Stripe from "stripe";
import { createOrder } from "@/lib/checkout/orders";
import { priceCart } from "@/lib/checkout/price-cart";
import type { CheckoutRequest } from "@/lib/checkout/request";
import type { PrismaClient } from "@/lib/generated/prisma/client";

/**
 * DEMO ONLY — the checkout as a typical first implementation writes it, with
 * no idempotency at all: every request creates an order and charges the card.
 * It exists so the lab and the benchmarks can show, side by side, what the
 * real endpoint prevents. Served only when LAB_NAIVE_ENDPOINT=1.
 */
export type NaiveResult =
  | { kind: "paid"; orderId: string; paymentIntentId: string; amountCents: number; currency: string }
  | { kind: "declined"; orderId: string; declineCode: string; message: string }
  | { kind: "invalid"; issues: Array<{ path: Array<string | number>; message: string }> };

export async function naiveCheckout(
  deps: { prisma: PrismaClient; stripe: Stripe; log?: (event: string, fields: Record<string, unknown>) => void },
  /**
   * `labRun` tags the PaymentIntent so the lab can count this run's charges in
   * the gateway's ledger. `attemptKey`, the client's Idempotency-Key if it sent
   * one, is only written into the metadata (as the real checkout does), never
   * used: so an audit (the chaos soak's checker) can tell which attempt each
   * of the naive route's charges belongs to.
   */
  input: { customerId: string; body: CheckoutRequest; labRun?: string | undefined; attemptKey?: string | undefined },
): Promise<NaiveResult> {
  const cart = await priceCart(deps.prisma, input.body.items);
  if (!cart.ok) return { kind: "invalid", issues: cart.issues };
  // The same order write as the real checkout, minus the claim it belongs to.
  const order = (await createOrder(deps.prisma, {
    owner: null,
    customerId: input.customerId,
    paymentMethod: input.body.paymentMethod,
    ...cart,
  }))!;
  deps.log?.("order", { orderId: order.id });
  try {
    const intent = await deps.stripe.paymentIntents.create({
      amount: cart.amountCents,
      currency: cart.currency,
      payment_method: input.body.paymentMethod,
      confirm: true,
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      metadata: {
        orderId: order.id,
        customerId: input.customerId,
        lane: "naive",
        ...(input.labRun ? { labRun: input.labRun } : {}),
        ...(input.attemptKey ? { idempotencyKey: input.attemptKey } : {}),
      },
    });
    deps.log?.("payment", { kind: "succeeded", paymentIntentId: intent.id, orderId: order.id });
    await deps.prisma.order.update({ where: { id: order.id }, data: { status: "paid", paymentIntentId: intent.id } });
    return {
      kind: "paid",
      orderId: order.id,
      paymentIntentId: intent.id,
      amountCents: cart.amountCents,
      currency: cart.currency,
    };
  } catch (err) {
    const card = err as Stripe.errors.StripeCardError;
    if (card.type !== "StripeCardError") {
      deps.log?.("payment", { kind: "unknown", orderId: order.id, reason: card.message });
      throw err;
    }
    deps.log?.("payment", {
      kind: "declined",
      paymentIntentId: card.payment_intent?.id,
      orderId: order.id,
      declineCode: card.decline_code,
    });
    await deps.prisma.order.update({
      where: { id: order.id },
      data: { status: "failed", declineCode: card.decline_code ?? null },
    });
    return {
      kind: "declined",
      orderId: order.id,
      declineCode: card.decline_code ?? "card_declined",
      message: card.message,
    };
  }
}
