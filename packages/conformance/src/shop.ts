import { EmulatorClient } from "@checkout/stripe-emulator/client";
import type { Target } from "./target";

/**
 * The shop's hooks for the kit: a subject is a guest session (`POST
 * /api/session`, its cookie), the effect is a charge at the Stripe emulator
 * (its `charges` counter), and the emulator's gate holds a charge in flight.
 */
export type ShopEndpoint = "checkout" | "naive";

export const SHOP_PATHS: Record<ShopEndpoint, string> = {
  checkout: "/api/checkout",
  naive: "/api/lab/naive-checkout",
};

export interface ShopOptions {
  /** The shop's origin, e.g. http://localhost:3000. */
  url: string;
  /** The emulator the shop charges through, and the API key of the shop's account there (null: the default account). */
  emulator: { url: string; apiKey?: string | null };
  /** Kills the shop and starts it again; without it the crash is not checked. */
  restart?: Target["restart"];
  settleMs?: number;
}

const cart = (quantity = 2, paymentMethod = "pm_card_visa") => ({
  items: [
    { sku: "tee-classic", quantity },
    { sku: "mug-enamel", quantity: 1 },
  ],
  paymentMethod,
});

export function shopTarget(endpoint: ShopEndpoint, options: ShopOptions): Target {
  const emulator = new EmulatorClient(options.emulator.url, { apiKey: options.emulator.apiKey ?? null });
  return {
    name: endpoint,
    url: new URL(SHOP_PATHS[endpoint], options.url).href,
    async subject() {
      const response = await fetch(new URL("/api/session", options.url), { method: "POST" });
      const cookie = response.headers.getSetCookie()[0]?.split(";")[0];
      if (response.status >= 300 || !cookie) {
        throw new Error(`POST /api/session answered ${response.status} ${await response.text()}`);
      }
      return { cookie };
    },
    bodies: {
      base: () => cart(),
      nestedChange: () => cart(3),
      topLevelChange: () => cart(2, "pm_card_mastercard"),
    },
    effects: () => emulator.stat("charges"),
    hold: {
      close: async () => void (await emulator.faults({ gate: true })),
      held: async () => void (await emulator.held(1)),
      open: async () => void (await emulator.faults({ gate: false })),
    },
    restart: options.restart,
    settleMs: options.settleMs,
  };
}
