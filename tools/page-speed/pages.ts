import { randomUUID } from "node:crypto";
import { CART_STORAGE_KEY } from "@/lib/checkout-client/use-cart";
import type { PageSpeed } from "./budget";
import { launchSpeedBrowser } from "./lighthouse";

/** What the shopper has in the cart when the checkout is measured: one product, as a first purchase. */
const CART = [{ sku: "tee-classic", quantity: 1 }];

/**
 * Lighthouse on the three pages a purchase crosses, once each, as one
 * shopper meets them: the catalogue (a first visit), the checkout with a
 * cart, and the confirmation of an order this browser paid (made through
 * the API with Stripe's test card, so the page measured is the one a shopper
 * lands on). `appUrl` must reach a production build of the shop.
 */
export async function measureShop(appUrl: string): Promise<PageSpeed[]> {
  const browser = await launchSpeedBrowser();
  try {
    const speeds: PageSpeed[] = [];
    speeds.push(await browser.measure("/", new URL("/", appUrl).href));

    const tab = await browser.context.newPage();
    await tab.goto(new URL("/", appUrl).href);
    await tab.evaluate(({ key, cart }) => window.localStorage.setItem(key, cart), {
      key: CART_STORAGE_KEY,
      cart: JSON.stringify(CART),
    });
    await tab.close();
    speeds.push(await browser.measure("/checkout", new URL("/checkout", appUrl).href));

    const api = browser.context.request;
    const session = await api.post(new URL("/api/session", appUrl).href);
    if (!session.ok()) throw new Error(`POST /api/session answered ${session.status()}`);
    const paid = await api.post(new URL("/api/checkout", appUrl).href, {
      headers: { "Idempotency-Key": randomUUID() },
      data: { items: CART, paymentMethod: "pm_card_visa" },
    });
    const order = (await paid.json()) as { orderId?: string };
    if (paid.status() !== 201 || !order.orderId)
      throw new Error(`POST /api/checkout answered ${paid.status()}: ${JSON.stringify(order)}`);
    speeds.push(await browser.measure("/orders/{id}", new URL(`/orders/${order.orderId}`, appUrl).href));
    return speeds;
  } finally {
    await browser.close();
  }
}
