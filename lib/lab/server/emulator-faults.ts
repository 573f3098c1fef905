import "server-only";
import type { Env } from "@/lib/env";
import { labEnabled } from "@/lib/lab/enabled";
import type { LabFaultPatch } from "@/lib/lab/fault-patch";

/**
 * The lab's way to the Stripe emulator's fault switches (latency, injected
 * 5xx), for scenarios that need a slow or failing gateway. Only with the lab
 * flag and only when the app's Stripe base is the local emulator: against
 * real Stripe there is nothing to switch, and the route does not exist.
 */
export function labFaultsEnabled(env: Env): boolean {
  return labEnabled(env) && env.stripeApiBase !== undefined;
}

/**
 * GET or POST the emulator's `/_emulator/faults`; returns its answer (settings
 * and stats). It names the app's own key, so the faults are those of the
 * account the app's payments use (the default one unless a test gave the key
 * an account of its own).
 */
export async function emulatorFaults(env: Env, patch?: LabFaultPatch): Promise<{ status: number; body: unknown }> {
  const url = new URL("/_emulator/faults", env.stripeApiBase);
  const response = await fetch(url, {
    method: patch ? "POST" : "GET",
    headers: {
      Authorization: `Bearer ${env.STRIPE_SECRET_KEY}`,
      ...(patch ? { "Content-Type": "application/json" } : {}),
    },
    body: patch ? JSON.stringify(patch) : undefined,
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}
