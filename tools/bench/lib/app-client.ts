import { randomUUID } from "node:crypto";
import { EmulatorClient, type FaultPatch, type FaultsView } from "@checkout/stripe-emulator/client";
import { sleep } from "@/lib/sleep";
/** Small HTTP helpers for the app and the emulator's fault controls. */
export const CART = JSON.stringify({ items: [{ sku: "tee-classic", quantity: 1 }], paymentMethod: "pm_card_visa" });

/** A fresh guest session's cookie (`name=value`), as a browser would send it. */
export async function startSession(appUrl: string): Promise<string> {
  const response = await fetch(`${appUrl}/api/session`, { method: "POST" });
  const cookie = response.headers.getSetCookie()[0]?.split(";")[0];
  if (!response.ok || !cookie) throw new Error(`POST /api/session answered ${response.status} without a cookie`);
  return cookie;
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
  const cookie = await startSession(appUrl);
  const key = randomUUID();
  const before = await setFaults(emulatorUrl, { latencyMs: holdMs });
  // The owner finishes on its own holdMs after it started; later scenarios run at 0 ms.
  void checkoutOnce(appUrl, cookie, key, { signal: AbortSignal.timeout(holdMs + 30_000) }).catch(() => null);
  for (let waited = 0; (await getFaults(emulatorUrl)).stats.delayed <= before.stats.delayed; waited += 50) {
    if (waited > 10_000) throw new Error("Timed out waiting for the owner's charge to reach the emulator");
    await sleep(50);
  }
  return { cookie, key, before, release: () => setFaults(emulatorUrl, { latencyMs: 0 }) };
}
