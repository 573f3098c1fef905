import { randomUUID } from "node:crypto";
import { EmulatorClient, type FaultPatch, type FaultsView } from "@checkout/stripe-emulator/client";
import { sleep } from "@/lib/sleep";
/** Small HTTP helpers for the app and the emulator's fault controls. */
export const CART = JSON.stringify({ items: [{ sku: "tee-classic", quantity: 1 }], paymentMethod: "pm_card_visa" });

/** The publishable key of the bench's account (the app's `sk_test_emulator`). */
const PUBLISHABLE_KEY = "pk_test_emulator";

/** The cart paid for with a ConfirmationToken, as the checkout page sends it. */
export function cartWithToken(confirmationToken: string): string {
  return JSON.stringify({ items: [{ sku: "tee-classic", quantity: 1 }], confirmationToken });
}

/**
 * A ConfirmationToken for Stripe's test Visa, made as the Payment Element's
 * iframe makes it (`POST /v1/confirmation_tokens`, publishable key): the
 * browser's part of a checkout, before the shop is asked.
 */
export async function makeConfirmationToken(emulatorUrl: string): Promise<string> {
  const response = await fetch(`${emulatorUrl}/v1/confirmation_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${PUBLISHABLE_KEY}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": "4242424242424242",
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": String(new Date().getFullYear() + 3),
      "payment_method_data[card][cvc]": "123",
    }),
  });
  const json = (await response.json()) as { id?: unknown };
  if (!response.ok || typeof json.id !== "string")
    throw new Error(`POST /v1/confirmation_tokens answered ${response.status}`);
  return json.id;
}

/**
 * Tokens made ahead of the requests that spend them, one per checkout (a
 * token pays once), so their making is never inside a timed request. `take`
 * on an empty pool hands out a token that does not exist (the checkout then
 * fails and is counted) and counts the shortfall.
 */
export class TokenPool {
  private readonly tokens: string[] = [];
  taken = 0;
  shortfall = 0;

  constructor(private readonly emulatorUrl: string) {}

  /** Makes tokens until at least `count` are waiting, 16 at a time. */
  async fill(count: number): Promise<void> {
    const missing = Math.max(0, count - this.tokens.length);
    let made = 0;
    const worker = async () => {
      while (made < missing) {
        made += 1;
        this.tokens.push(await makeConfirmationToken(this.emulatorUrl));
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  }

  take(): string {
    this.taken += 1;
    const token = this.tokens.pop();
    if (token !== undefined) return token;
    this.shortfall += 1;
    return "ctoken_pool_ran_dry";
  }
}

/** A fresh guest session's cookie (`name=value`), as a browser would send it. */
export async function startSession(appUrl: string): Promise<string> {
  return (await startSessionOf(appUrl)).cookie;
}

/** A fresh guest session: its cookie and its customer. */
export async function startSessionOf(appUrl: string): Promise<{ cookie: string; customerId: string }> {
  const response = await fetch(`${appUrl}/api/session`, { method: "POST" });
  const cookie = response.headers.getSetCookie()[0]?.split(";")[0];
  if (!response.ok || !cookie) throw new Error(`POST /api/session answered ${response.status} without a cookie`);
  const { customerId } = (await response.json()) as { customerId: string };
  return { cookie, customerId };
}

export function checkoutHeaders(cookie: string, key: string): Record<string, string> {
  return { "content-type": "application/json", cookie, "idempotency-key": key };
}

export async function checkoutOnce(
  appUrl: string,
  cookie: string,
  key: string,
  init: RequestInit = {},
): Promise<Response> {
  return fetch(`${appUrl}/api/checkout`, {
    method: "POST",
    headers: checkoutHeaders(cookie, key),
    body: CART,
    ...init,
  });
}

export function setFaults(emulatorUrl: string, patch: FaultPatch): Promise<FaultsView> {
  return new EmulatorClient(emulatorUrl).faults(patch);
}

export function getFaults(emulatorUrl: string): Promise<FaultsView> {
  return new EmulatorClient(emulatorUrl).snapshot();
}

/**
 * Starts an attempt and holds its owner in the provider for `holdMs` (emulated
 * latency on `/v1` POSTs): resolves once the owner's charge reached the
 * emulator, so duplicates of `key` are answered 409. `release` sets latency back.
 */
export async function holdAnAttempt(appUrl: string, emulatorUrl: string, holdMs: number) {
  const { cookie, customerId } = await startSessionOf(appUrl);
  const key = randomUUID();
  const before = await setFaults(emulatorUrl, { latencyMs: holdMs });
  // The owner finishes on its own holdMs after it started; later scenarios run at 0 ms.
  void checkoutOnce(appUrl, cookie, key, { signal: AbortSignal.timeout(holdMs + 30_000) }).catch(() => null);
  for (let waited = 0; (await getFaults(emulatorUrl)).stats.delayed <= before.stats.delayed; waited += 50) {
    if (waited > 10_000) throw new Error("Timed out waiting for the owner's charge to reach the emulator");
    await sleep(50);
  }
  return { cookie, customerId, key, before, release: () => setFaults(emulatorUrl, { latencyMs: 0 }) };
}
