import type { Metadata } from "next";
import { env } from "@/lib/env";
import { CheckoutView } from "./checkout-view";

export const metadata: Metadata = { title: "Checkout" };

export default function CheckoutPage() {
  // Read per request (pages render per request, app/layout.tsx), so one build serves any key.
  const { NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY: publishableKey, stripeJsUrl, PAYMENT_METHOD_TYPES } = env();
  return (
    <CheckoutView
      stripe={publishableKey ? { publishableKey, scriptUrl: stripeJsUrl } : null}
      paymentMethodTypes={PAYMENT_METHOD_TYPES}
    />
  );
}
