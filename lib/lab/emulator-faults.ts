import { z } from "zod";
import type { Env } from "../env";

/**
 * The lab's way to the Stripe emulator's fault switches (latency, injected
 * 5xx), for scenarios that need a slow or failing gateway. Only with the lab
 * flag and only when the app's Stripe base is the local emulator: against
 * real Stripe there is nothing to switch, and the route does not exist.
 */
export const faultPatchSchema = z.strictObject({
  latencyMs: z.number().int().min(0).max(30_000).optional(),
  failNext: z.strictObject({ status: z.union([z.literal(500), z.literal(503), z.literal(429)]), times: z.number().int().min(1).max(50) }).nullable().optional(),
  dropAfterCharge: z.number().int().min(0).max(50).optional(),
});
export type FaultPatch = z.infer<typeof faultPatchSchema>;

export function labFaultsEnabled(env: Env): boolean {
  return env.LAB_NAIVE_ENDPOINT && env.usesStripeEmulator && env.stripeApiBase !== undefined;
}

/** GET or POST the emulator's `/_emulator/faults`; returns its answer (settings and stats). */
export async function emulatorFaults(env: Env, patch?: FaultPatch): Promise<{ status: number; body: unknown }> {
  const url = new URL("/_emulator/faults", env.stripeApiBase);
  const response = await fetch(url, {
    method: patch ? "POST" : "GET",
    headers: patch ? { "Content-Type": "application/json" } : undefined,
    body: patch ? JSON.stringify(patch) : undefined,
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}
