import type { Env } from "@/lib/env";

/**
 * The lab's one switch (docs/contract.md, "The lab"): its page, its
 * `/api/lab/*` routes, its tracer and its nav link exist only with
 * LAB_NAIVE_ENDPOINT=1, which the configuration accepts only with the local
 * Stripe emulator. proxy.ts answers 404 for its paths when it is off.
 */
export function labEnabled(env: Pick<Env, "LAB_NAIVE_ENDPOINT" | "usesStripeEmulator">): boolean {
  return env.LAB_NAIVE_ENDPOINT && env.usesStripeEmulator;
}
