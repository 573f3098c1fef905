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

export async function checkoutOnce(appUrl: string, cookie: string, key: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${appUrl}/api/checkout`, { method: "POST", headers: checkoutHeaders(cookie, key), body: CART, ...init });
}

export interface FaultState {
  latencyMs: number;
  stats: { requests: number; charges: number; delayed: number; replayed: number };
}

export async function setFaults(emulatorUrl: string, patch: { latencyMs?: number }): Promise<FaultState> {
  const response = await fetch(`${emulatorUrl}/_emulator/faults`, { method: "POST", body: JSON.stringify(patch) });
  if (!response.ok) throw new Error(`POST /_emulator/faults answered ${response.status}: ${await response.text()}`);
  return getFaults(emulatorUrl);
}

export async function getFaults(emulatorUrl: string): Promise<FaultState> {
  const response = await fetch(`${emulatorUrl}/_emulator/faults`);
  return (await response.json()) as FaultState;
}
