"use client";

import type { Stripe } from "@stripe/stripe-js";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, useSyncExternalStore } from "react";
import { tabAttemptStore } from "./attempt-store";
import { checkoutFor, releaseCheckout } from "./cart-checkout";
import { CheckoutMachine } from "./checkout-machine";
import { currentCartItems, removePaidItems } from "./use-cart";

export type { TokenResult } from "./checkout-machine";

/**
 * The checkout page's CheckoutMachine: one per page, over the tab's attempt
 * store, resumed once after mount (a reload mid-payment carries on with the
 * attempt sessionStorage kept). `payWithCard` pays with the Payment Element's
 * card: an open attempt for the same items is sent again as it is (a token
 * pays once); otherwise `createToken` makes a new one, under a new key.
 */
export function useCheckout(stripeJs?: () => Promise<Stripe | null>) {
  const client = useQueryClient();
  const [machine] = useState(
    () =>
      new CheckoutMachine({
        client,
        store: tabAttemptStore(),
        stripeJs,
        navigate: (url) => window.location.assign(url),
        onPaid: (orderId, items) => {
          releaseCheckout();
          removePaidItems(orderId, items);
        },
        cartItems: currentCartItems,
        checkoutFor: (items) => checkoutFor(items),
      }),
  );
  const snapshot = useSyncExternalStore(machine.subscribe, machine.getSnapshot, () => CheckoutMachine.initialSnapshot);
  useEffect(() => machine.resume(), [machine]);
  return { ...snapshot, payWithCard: machine.payWithCard, checkAgain: machine.checkAgain };
}
