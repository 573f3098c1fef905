/**
 * DEMO ONLY — the checkout as a typical first implementation writes it, with
 * no idempotency at all: every request creates an order and charges the card.
 * It exists so the lab and the benchmarks can show, side by side, what the
 * real endpoint prevents. Served only when LAB_NAIVE_ENDPOINT=1.
 */
import "server-only";
import type Stripe from "stripe";
import { priceCart, type PricedLine } from "./price-cart";
import { paymentCredential, type CheckoutRequest } from "@/lib/checkout/request";
import type { ValidationIssue } from "@/lib/validation";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import type { Observe } from "@/lib/observability";
import { labMetadata, type ShopIdentity } from "@/lib/checkout/intent-ownership";

export type NaiveResult =
  | { kind: "paid"; orderId: string; paymentIntentId: string; amountCents: number; currency: string }
  | { kind: "declined"; orderId: string; declineCode: string; message: string }
  /** Stripe failed otherwise (a 503, a timeout): the order is left pending, as a first implementation leaves it. */
  | { kind: "failed"; orderId: string; message: string }
  | { kind: "invalid"; issues: ValidationIssue[] };

export async function naiveCheckout(
  deps: { prisma: PrismaClient; stripe: Stripe; log?: Observe; identity: ShopIdentity },
  /**
   * `labRun` tags the PaymentIntent so the lab can count this run's charges in
   * the gateway's ledger. `attemptKey`, the client's Idempotency-Key if it sent
   * one, is only written into the metadata (as the real checkout does), never
   * used: so an audit (the chaos soak's checker) can tell which attempt each
   * of the naive route's charges belongs to.
   */
  input: { customerId: string; body: CheckoutRequest; labRun?: string | undefined; attemptKey?: string | undefined },
): Promise<NaiveResult> {
  // The naive route knows no checkouts: it pays a cart of items.
  if (!input.body.items) return { kind: "invalid", issues: [{ path: ["checkoutId"], message: "send items" }] };
  const cart = await priceCart(deps.prisma, input.body.items);
  if (!cart.ok) return { kind: "invalid", issues: cart.issues };
  const order = await writeNaiveOrder(deps.prisma, input.customerId, paymentCredential(input.body), cart);
  deps.log?.("order", { orderId: order.id });
  try {
    const intent = await deps.stripe.paymentIntents.create({
      amount: cart.amountCents,
      currency: cart.currency,
      ...(input.body.confirmationToken
        ? { confirmation_token: input.body.confirmationToken }
        : { payment_method: input.body.paymentMethod }),
      confirm: true,
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      metadata: {
        // Signed as the lab's: its audit counts these charges as the shop's to account for, and no alarm
        // takes them for forged ones (lib/checkout/intent-ownership.ts).
        ...labMetadata(deps.identity, {
          orderId: order.id,
          customerId: input.customerId,
          lane: "naive",
          idempotencyKey: input.attemptKey,
          amountCents: cart.amountCents,
          currency: cart.currency,
        }),
        ...(input.labRun ? { labRun: input.labRun } : {}),
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
      // One line, the payment event's; thrown on, it would be logged again as a crash with the SDK's whole error.
      if (!(err instanceof Error)) throw err;
      deps.log?.("payment", { kind: "unknown", orderId: order.id, reason: err.message });
      return { kind: "failed", orderId: order.id, message: err.message };
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

/** A new order on every call, with its customer and lines, in one statement (as cheap as the real checkout's). */
export async function writeNaiveOrder(
  prisma: PrismaClient,
  customerId: string,
  paymentMethod: string,
  cart: { lines: PricedLine[]; amountCents: number; currency: string },
): Promise<{ id: string }> {
  const lines = cart.lines.map((line) => ({
    sku: line.sku,
    name: line.name,
    unit_price_cents: line.unitPriceCents,
    quantity: line.quantity,
  }));
  const rows = await prisma.$queryRaw<Array<{ id: string }>>`
    with customer as (
      insert into customers (id) values (${customerId}::uuid) on conflict (id) do nothing
    ),
    created as (
      insert into orders (customer_id, amount_cents, currency, payment_method)
      values (${customerId}::uuid, ${cart.amountCents}, ${cart.currency}, ${paymentMethod})
      returning id
    ),
    lines as (
      insert into order_lines (order_id, sku, name, unit_price_cents, quantity)
      select created.id, line.sku, line.name, line.unit_price_cents, line.quantity
        from created, jsonb_to_recordset(${JSON.stringify(lines)}::jsonb)
               as line(sku text, name text, unit_price_cents int, quantity int)
    )
    select id from created`;
  return rows[0]!;
}
