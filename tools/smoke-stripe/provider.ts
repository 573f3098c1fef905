import type Stripe from "stripe";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { JourneyFailure } from "./shop";

/** How far back the smoke looks for its own PaymentIntents: its start, less a margin for clocks that disagree. */
const CLOCK_MARGIN_SECONDS = 300;

/**
 * Stripe's record of the smoke's attempts, read with the real SDK: the
 * PaymentIntents whose metadata names an order (docs/contract.md §3 step 4).
 * It lists the newest intents rather than searching them, because Stripe's
 * search can lag the write by up to a minute; the list cannot.
 */
export class Provider {
  readonly stripe: Stripe;
  private readonly since = Math.floor(Date.now() / 1000) - CLOCK_MARGIN_SECONDS;

  constructor(config: { secretKey: string; apiBase: string | undefined }) {
    this.stripe = createStripeClient({ secretKey: config.secretKey, apiBase: config.apiBase });
  }

  /** Exactly one intent for the order, in the status and for the amount the shop reported. */
  async theIntentOf(
    order: { id: string; amountCents: number; paymentIntentId: string | null },
    status: Stripe.PaymentIntent.Status,
  ): Promise<Stripe.PaymentIntent> {
    const intents = await this.intentsOf(order.id);
    if (intents.length !== 1)
      throw new JourneyFailure(
        `Stripe holds ${intents.length} PaymentIntents with metadata orderId=${order.id}, expected 1` +
          (intents.length === 0 ? " (is STRIPE_SECRET_KEY the shop's account?)" : `: ${ids(intents)}`),
      );
    const intent = intents[0]!;
    if (intent.status !== status)
      throw new JourneyFailure(`Stripe's ${intent.id} is ${intent.status}, expected ${status}`);
    if (intent.amount !== order.amountCents)
      throw new JourneyFailure(
        `Stripe's ${intent.id} is for ${intent.amount}, the shop's order for ${order.amountCents}`,
      );
    if (order.paymentIntentId !== null && order.paymentIntentId !== intent.id)
      throw new JourneyFailure(`the shop's order records ${order.paymentIntentId}, Stripe's intent is ${intent.id}`);
    return intent;
  }

  private async intentsOf(orderId: string): Promise<Stripe.PaymentIntent[]> {
    const found: Stripe.PaymentIntent[] = [];
    // Newest first; stop at the first intent older than the smoke.
    for await (const intent of this.stripe.paymentIntents.list({ limit: 100 })) {
      if (intent.created < this.since) break;
      if (intent.metadata?.orderId === orderId) found.push(intent);
    }
    return found;
  }
}

function ids(intents: Stripe.PaymentIntent[]): string {
  return intents.map((i) => `${i.id} ${i.status}`).join(", ");
}
