import type { Env } from "@/lib/env";

/**
 * The lab's one switch (docs/contract.md, "The lab"): its page, its
 * `/api/lab/*` routes, its tracer and its nav link exist only with
 * LAB_NAIVE_ENDPOINT=1, which the configuration accepts only with the local
 * Stripe emulator. While it is off proxy.ts answers 404 for its paths, and
 * each of its route handlers does too (lib/lab/server/lab-only.ts).
 */
export function labEnabled(env: Pick<Env, "LAB_NAIVE_ENDPOINT" | "usesStripeEmulator">): boolean {
  return env.LAB_NAIVE_ENDPOINT && env.usesStripeEmulator;
}

/** The answer of every lab route while the lab is off: as for a route that does not exist. */
export function labOff(): Response {
  return Response.json(
    { error: "not_found", message: "The lab is off (LAB_NAIVE_ENDPOINT=1 with the Stripe emulator enables it)." },
    { status: 404 },
  );
}
